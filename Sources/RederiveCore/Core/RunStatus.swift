/// How a run ended, as kept in the run history.
public enum RunStatus: String, Sendable {
    /// Still going, or killed without a chance to say so (then resumed as `crashed`).
    case running
    /// Finished every record (some may have been skipped).
    case completed
    /// Stopped by the error budget after committing its work.
    case aborted
    /// Stopped by SIGINT/SIGTERM after committing the batch in hand.
    case interrupted
    /// Found unfinished by a later run of the same command, which continued it.
    case crashed
    /// Ended by a fatal error.
    case failed
}
