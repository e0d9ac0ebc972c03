/// How fast the signals that trail the run's writes (`HealthSignal.trailsWrites`: a standby's
/// replay lag, the WAL a slot holds) have been growing, in units a second at full speed: what
/// `HealthPolicy` projects to the next reading. Pure: fed readings and their times.
///
/// A slope is measured between two readings over the time the run was writing: the seconds it
/// paused after its batches meanwhile (yellow) are taken out, so a slope measured at half speed
/// is the full-speed one. An interval the run spent waiting (red) measures the server alone and
/// forgets every slope, so a run that resumes starts again as from nothing known.
public struct HealthTrend: Sendable {
    /// How many slopes are kept per signal: the projection takes the steepest of them.
    public static let kept = 3

    private var last: [HealthSignal: (value: Double, at: Double)] = [:]
    private var slopes: [HealthSignal: [Double]] = [:]

    /// Nothing known.
    public init() {}

    /// Takes `reading`, made at `now`, after the run `paused` seconds between batches since the
    /// last reading; `waited`: the run wrote nothing since it (a red wait), so no slope is
    /// measured and all are forgotten.
    public mutating func observe(_ reading: HealthReading, now: Double, paused: Double, waited: Bool) {
        if waited { slopes = [:] }
        for signal in HealthSignal.allCases where signal.trailsWrites {
            guard let value = reading[signal] else {
                (last[signal], slopes[signal]) = (nil, nil)
                continue
            }
            if !waited, let previous = last[signal], now - previous.at > 0 {
                let writing = max(now - previous.at - paused, 0.1 * (now - previous.at))
                slopes[signal, default: []].append((value - previous.value) / writing)
                slopes[signal] = Array(slopes[signal]!.suffix(Self.kept))
            }
            last[signal] = (value, now)
        }
    }

    /// The steepest of `signal`'s recent slopes (units a second at full speed), nil before one
    /// is known.
    public func slope(_ signal: HealthSignal) -> Double? { slopes[signal]?.max() }

    /// Where `signal` will be `seconds` after a reading of `value` if it grows as fast as it
    /// has lately: `value` itself when it has not grown (or no slope is known).
    public func projected(_ signal: HealthSignal, from value: Double, in seconds: Double) -> Double {
        guard let slope = slope(signal), slope > 0 else { return value }
        return value + slope * seconds
    }
}
