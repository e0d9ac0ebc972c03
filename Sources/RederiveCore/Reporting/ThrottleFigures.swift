/// The health throttle's state at the end of a run (`--throttle on|observe`), for the
/// metrics file: its grade, the signal and reason it waits for (or, in observe mode, would
/// wait for), the seconds it waited for health in total, and the last value of each signal.
public struct ThrottleFigures: Sendable, Equatable {
    /// `on` or `observe`.
    public var mode: String
    /// `green`, `yellow` or `red`: what the last reading meant (what `on` acts on).
    public var grade: String
    /// Whether it waits (`on`) or would wait (`observe`): red, or not yet green long enough.
    public var waiting: Bool
    /// The worst signal past a limit (`standby_lag_bytes`), nil when none is.
    public var signal: String?
    /// Why, worst first ("standby replay lag 120.0 MB >= red 64.0 MB"), nil on green.
    public var reason: String?
    /// Seconds the run waited for health in total: red waits and yellow's pauses.
    public var healthWaitedSeconds: Double
    /// The last reading, nil when none was taken.
    public var lastReading: BatchHealth?

    /// The throttle's state.
    public init(
        mode: String, grade: String, waiting: Bool, signal: String?, reason: String?, healthWaitedSeconds: Double,
        lastReading: BatchHealth?
    ) {
        (self.mode, self.grade, self.waiting, self.signal, self.reason) = (mode, grade, waiting, signal, reason)
        (self.healthWaitedSeconds, self.lastReading) = (healthWaitedSeconds, lastReading)
    }

    /// The grade as a number: 0 green, 1 yellow, 2 red.
    public var gradeValue: Double {
        switch grade {
        case "yellow": 1
        case "red": 2
        default: 0
        }
    }
}
