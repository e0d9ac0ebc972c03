/// What `rederive history --prune` deletes: old summary history and derive ranges.
package protocol HistoryPruner: StoreHandle {
    /// Deletes the history of all but the latest `keepRuns` runs that replaced summaries and
    /// (when given) what was replaced before `before` (ISO 8601, UTC); returns the rows removed.
    func pruneHistory(keepRuns: Int?, before: String?) throws(RederiveError) -> Int
    /// Deletes the derive range rows of the runs `history --prune` prunes: all but the latest
    /// `keepRuns` runs that have ranges, and (when given) runs that ended before `before`;
    /// never those of a run a rerun could still continue. Returns the rows removed, or nil on
    /// an engine without ranges.
    func pruneRanges(keepRuns: Int?, before: String?) throws(RederiveError) -> Int?
    /// Deletes the batch record (`run_batch`) of all but the latest `keepRuns` runs that have
    /// one, and (when given) of runs that ended (or, never ended, started) before `before`.
    /// Returns the rows removed, or nil on an engine without it.
    func pruneBatches(keepRuns: Int?, before: String?) throws(RederiveError) -> Int?
}

extension HistoryPruner {
    /// No ranges to prune (an engine that does not split derives).
    package func pruneRanges(keepRuns: Int?, before: String?) throws(RederiveError) -> Int? { nil }
    /// No batch record to prune.
    package func pruneBatches(keepRuns: Int?, before: String?) throws(RederiveError) -> Int? { nil }
}
