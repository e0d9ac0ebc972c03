/// The process exit statuses every command shares, in one place (the README's exit-status
/// table is checked against `ExitStatus.documented` by a test).
public enum ExitStatus {
    /// Every record went through.
    public static let ok: Int32 = 0
    /// Bad usage or configuration; nothing was written.
    public static let usage: Int32 = 1
    /// A fatal I/O or store failure; nothing is half-written.
    public static let failure: Int32 = 2
    /// Finished, but some records were skipped (see the report), or some of what was asked
    /// was not done (ids not found, failures only a re-import can retry, stale records left
    /// out of an export: see the run's warnings).
    public static let skippedRecords: Int32 = 3
    /// Stopped by the error budget after committing its work.
    public static let errorBudget: Int32 = 4

    /// `status --check`: something needs attention (stale records, open failures, a run
    /// that did not complete).
    public static let needsAttention: Int32 = 5

    /// Another writing run holds the store's run lock (cron: "busy", not "broken").
    public static let busy: Int32 = 6
    /// A guard refused the run before writing anything: more summaries would change than
    /// `--max-changes` allows, or a plan no longer matches.
    public static let refused: Int32 = 7

    /// Stopped by `signal` after committing the batch in hand: 128 + the signal number
    /// (130 for SIGINT, 143 for SIGTERM).
    public static func stopped(bySignal signal: Int32) -> Int32 { 128 + signal }

    /// Every status a command can end with, in the README's order (130 and 143 share a row).
    public static let documented: [Int32] = [
        ok, usage, failure, skippedRecords, errorBudget, needsAttention, busy, refused, stopped(bySignal: 2),
        stopped(bySignal: 15),
    ]
}
