/// `--throttle on|observe|off` (pipeline key `throttle`): whether a run acts on the server's
/// health, only says what it would do, or reads nothing.
public enum ThrottleMode: String, Sendable, CaseIterable, Codable {
    /// Read the signals and act: slow down on yellow, wait on red.
    case on
    /// Read the signals and log what would be done, changing nothing (to tune limits on
    /// production first).
    case observe
    /// Read nothing.
    case off
}
