extension BatchSink where Write == [ImportItem] {
    /// The sink of a job that writes import batches (`import`, `copy-store`): each batch goes to
    /// `store` with the run's progress (its statistics with the counts `totals` holds so far,
    /// `ImportBatchCounts.stated(in:)`), and its counts are added to `totals`.
    static func importing(
        into store: any ImportWriter, runID: Int64, deriver: SummaryDeriver, allowDowngrade: Bool,
        totals: Shared<ImportBatchCounts>
    ) -> BatchSink {
        BatchSink { items, progress throws(RederiveError) in
            let counts = try store.writeImportBatch(
                items, runID: runID, deriver: deriver, allowDowngrade: allowDowngrade,
                progress: totals.withLock { $0 }.stated(in: progress))
            totals.withLock { $0.add(counts) }
        }
    }
}
