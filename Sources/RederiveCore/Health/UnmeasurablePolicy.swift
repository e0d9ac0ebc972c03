/// What a run does about a signal it cannot measure (a role without `pg_monitor`, a managed
/// server without the view): reported once either way.
public enum UnmeasurablePolicy: Sendable, Equatable {
    /// Go on as if it were green (the default, as GitLab's migrations treat "unknown").
    case `continue`
    /// Wait as on red once it has stayed unmeasurable this many seconds.
    case wait(afterSeconds: Double)

    /// Parses `continue`, `wait` (after 300 s) or `wait:SECONDS`.
    public init?(_ text: String) {
        switch text {
        case "continue": self = .continue
        case "wait": self = .wait(afterSeconds: 300)
        default:
            guard text.hasPrefix("wait:"), let seconds = Double(text.dropFirst(5)), seconds.isFinite, seconds >= 0
            else { return nil }
            self = .wait(afterSeconds: seconds)
        }
    }
}
