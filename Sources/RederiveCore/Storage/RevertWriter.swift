/// What `rederive revert` reads and writes: the summaries a run replaced, restored under
/// the revert's own run.
package protocol RevertWriter: RunHistory {
    /// Whether run `id` exists, and its command.
    func runCommand(id: Int64) throws(RederiveError) -> String?
    /// The next summaries run `run` replaced, by history key.
    func fetchRevertCandidates(
        replacedBy run: Int64, after: Int64, upTo: Int64, limit: Int
    )
        throws(RederiveError) -> [RevertCandidate]
    /// Restores summaries in one transaction with the revert run's checkpoint, keeping what
    /// each record held in the history under the revert run first.
    func writeRevertBatch(
        _ restores: [(seq: Int64, summary: StoredSummary)], runID: Int64, checkpoint: Int64,
        progress: RunStatistics
    ) throws(RederiveError)
    /// How many summaries run `run` replaced whose history was pruned (0: none known).
    func prunedHistoryCount(of run: Int64) throws(RederiveError) -> Int
}
