#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process exit statuses every command shares, in one place (the README's exit-status
/// table is checked against `ExitStatus.documented` by a test). A status is a case, never a
/// number: code compares cases, and only the process boundary (and the run history, the
/// JSON documents and the metrics) sees `rawValue`.
public enum ExitStatus: Int32, Sendable, CaseIterable, CustomStringConvertible {
    /// Every record went through.
    case ok = 0
    /// Bad usage or configuration; nothing was written.
    case usage = 1
    /// A fatal I/O or store failure; nothing is half-written.
    case failure = 2
    /// Finished, but some records were skipped (see the report), or some of what was asked
    /// was not done (ids not found, failures only a re-import can retry, stale records left
    /// out of an export: see the run's warnings).
    case skippedRecords = 3
    /// Stopped by the error budget after committing its work (the budget counts records: an
    /// export nothing could be read from is one file fault, like a truncated one).
    case errorBudget = 4
    /// `status --check`: something needs attention (stale records, open failures, a run
    /// that did not complete).
    case needsAttention = 5
    /// Another writing run holds the store's run lock (cron: "busy", not "broken").
    case busy = 6
    /// A guard refused the run before writing anything: more summaries would change than
    /// `--max-changes` allows, or a plan no longer matches.
    case refused = 7
    /// `export` kept the existing output file, which holds records, because the new one would
    /// hold none (every summary stale, say); `--allow-empty` replaces it anyway.
    case emptyExport = 8
    /// `--exit-when-paused`: the run (or the store) is paused (`rederive pause`); what was
    /// handed over was committed, its claims given back, and the same command carries on
    /// once it is resumed (cron: "paused", not "broken").
    case paused = 9
    /// Stopped by SIGINT after committing the batch in hand (128 + 2).
    case interrupted = 130
    /// Stopped by SIGTERM after committing the batch in hand (128 + 15).
    case terminated = 143

    /// Stopped by `signal` after committing the batch in hand: 130 for SIGINT, 143 for
    /// SIGTERM (the only signals routed to a clean stop).
    public static func stopped(bySignal signal: Int32) -> ExitStatus {
        signal == SIGTERM ? .terminated : .interrupted
    }

    /// Whether the run counts as a success for cron and monitoring: 0, or 3 (skipped records).
    public var isSuccess: Bool { self == .ok || self == .skippedRecords }

    /// The number, for logs and documents.
    public var description: String { String(rawValue) }

    /// Every status a command can end with, in the README's order (130 and 143 share a row).
    public static let documented: [ExitStatus] = allCases
}
