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
