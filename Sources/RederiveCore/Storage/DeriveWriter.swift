/// What a derive writes: summaries, the failure ledger and the run's checkpoint.
package protocol DeriveWriter: RunHistory {
    /// Writes one derive batch and the run's checkpoint in one transaction; returns the
    /// failures new to the ledger.
    func writeDeriveBatch(
        _ writes: [DeriveWrite], runID: Int64, deriver: SummaryDeriver, checkpointSeq: Int64,
        progress: RunStatistics
    ) throws(RederiveError) -> Int
}
