/// What one import batch did.
public struct ImportBatchCounts: Sendable, Equatable {
    /// New records stored.
    public var inserted = 0
    /// Records whose raw data changed: updated and re-derived.
    public var updated = 0
    /// Records with the same raw data whose summary was stale: re-derived.
    public var rederived = 0
    /// Records already stored exactly so.
    public var unchanged = 0
    /// Failures new to the ledger.
    public var newFailures = 0
    /// Records whose summary a newer rederive derived: left untouched.
    public var newer = 0

    /// No counts yet.
    package init() {}

    /// Records written: inserted, updated or re-derived.
    package var written: Int { inserted + updated + rederived }

    /// `stats` with its done, unchanged and newer records set to these counts (the writer's,
    /// which alone knows them).
    package func stated(in stats: RunStatistics) -> RunStatistics {
        var s = stats
        s.recordsDone = written
        s.recordsUnchanged = unchanged
        s.recordsNewer = newer
        return s
    }

    /// Adds another batch's counts.
    package mutating func add(_ c: ImportBatchCounts) {
        inserted += c.inserted
        updated += c.updated
        rederived += c.rederived
        unchanged += c.unchanged
        newFailures += c.newFailures
        newer += c.newer
    }
}
