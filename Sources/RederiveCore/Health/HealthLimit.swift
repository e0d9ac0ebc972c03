/// A signal's two limits: at or above `yellow` a run slows down, at or above `red` it waits.
public struct HealthLimit: Sendable, Equatable, Codable {
    /// Where slowing down starts.
    public var yellow: Double
    /// Where waiting starts.
    public var red: Double

    /// Limits with `yellow` at most `red`.
    public init(yellow: Double, red: Double) {
        self.yellow = min(yellow, red)
        self.red = red
    }

    /// The red limit `red` with its yellow at `yellowShare` of it (half by default).
    public static func red(_ red: Double, yellowShare: Double = HealthLimits.defaultYellowShare) -> HealthLimit {
        HealthLimit(yellow: red * yellowShare, red: red)
    }

    /// How far `value` is into the yellow band: 0 at or below yellow, 1 at or above red.
    public func severity(_ value: Double) -> Double {
        if value >= red { return 1 }
        if value <= yellow || red <= yellow { return 0 }
        return (value - yellow) / (red - yellow)
    }

    /// The grade of `value`.
    public func grade(_ value: Double) -> HealthGrade {
        value >= red ? .red : value >= yellow && value > 0 ? .yellow : .green
    }
}
