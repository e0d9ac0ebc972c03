/// What a derive would do to the records it examines, counted once: the counts a preview
/// tallies (`ChangeTally.counts`) are the counts a plan keeps (`DerivePlan.counts`, the same
/// value, so their JSON keys are these names) and an apply compares.
public struct ChangeCounts: Codable, Sendable, Equatable {
    /// Records examined.
    public var examined: Int
    /// Existing summaries that would be rewritten (values, version or fingerprint change).
    public var rewrites: Int
    /// Records that would get their first summary.
    public var additions: Int
    /// Records whose derivation would fail.
    public var failing: Int
    /// Records left as they are.
    public var unchanged: Int
    /// Records left alone because a newer rederive derived them.
    public var newer: Int

    /// Counts, none by default.
    public init(
        examined: Int = 0, rewrites: Int = 0, additions: Int = 0, failing: Int = 0, unchanged: Int = 0, newer: Int = 0
    ) {
        (self.examined, self.rewrites, self.additions) = (examined, rewrites, additions)
        (self.failing, self.unchanged, self.newer) = (failing, unchanged, newer)
    }
}
