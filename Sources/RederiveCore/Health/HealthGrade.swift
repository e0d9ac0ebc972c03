/// How a signal or a whole reading stands against its limits.
public enum HealthGrade: Int, Sendable, Comparable, Codable, CustomStringConvertible {
    /// Below every yellow limit.
    case green
    /// At or above a yellow limit: slow down.
    case yellow
    /// At or above a red limit: wait.
    case red

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .green: "green"
        case .yellow: "yellow"
        case .red: "red"
        }
    }
}
