import Foundation

/// Which stored records a derive run visits.
public struct DeriveSelection: Sendable, Equatable {
    /// Every record, stale or not (`--all`).
    public var all = false
    /// Only these record ids (`--ids`).
    public var ids: [String]?
    /// Only records stored (imported or changed) at or after this ISO 8601 time (`--since`).
    public var since: String?
    /// Only records with an open decode/derive failure in the ledger (`--retry-failed`).
    public var retryFailed = false
    /// Records whose summary a run after this one wrote are selected too, stale or not (a
    /// plan's apply verifying the writes of its earlier runs, and finding those of others).
    /// Not part of `description`.
    package var writtenAfterRun: Int64?
    /// Each stored room also carries what only a preview's report shows (room name, record
    /// format, stored method); a run that writes, and a plan's check, read without them
    /// (they were 2% of a derive). Not part of `description`.
    package var readsPreviewColumns = false
    /// Each stored room also carries its raw room's hash (`StoredRoom.rawHash`): only a plan's
    /// check and apply compare it (`DeriveSpill`); a String of 32 characters a record cost the
    /// reading thread an allocation, freed on another thread. Read always on PostgreSQL. Not part
    /// of `description`.
    package var readsRawHash = false

    /// Creates a selection (default: every stale record).
    public init(all: Bool = false, ids: [String]? = nil, since: String? = nil, retryFailed: Bool = false) {
        self.all = all
        self.ids = ids
        self.since = since
        self.retryFailed = retryFailed
    }

    /// Whether `text` is a real calendar date (YYYY-MM-DD) or an ISO 8601 time with a zone
    /// (Z or ±HH:MM), as `--since` takes (`TimestampText.utcMilliseconds`: strict, so both
    /// engines see the same instant, never a rolled-over or unparsable date).
    public static func isValidSince(_ text: String) -> Bool { TimestampText.utcMilliseconds(text) != nil }

    /// `since` as bound to the store: UTC with milliseconds (as given when it is not valid,
    /// which `validate()` refuses).
    package var sinceUTC: String? { since.map { TimestampText.utcMilliseconds($0) ?? $0 } }

    /// Refuses a selection that cannot mean anything (a `since` that is not a time).
    public func validate() throws(RederiveError) {
        if let since, !Self.isValidSince(since) {
            throw .usage("since \(since): expected an ISO 8601 date or time, e.g. 2026-11-01 or 2026-11-01T00:00:00Z")
        }
        if all && retryFailed { throw .usage("all and retry-failed cannot be combined") }
    }

    /// A stable text for the run history and the resume key.
    public var description: String {
        var parts: [String] = [all ? "all" : retryFailed ? "retry-failed" : "stale"]
        if let ids { parts.append("ids=" + ids.sorted().joined(separator: ",")) }
        if let since { parts.append("since=" + since) }
        return parts.joined(separator: " ")
    }
}
