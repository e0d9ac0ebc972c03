/// What an import (and `copy-store`'s destination) writes: batches of records under a
/// recorded run.
package protocol ImportWriter: RunHistory {
    /// Writes one import batch in one transaction (with the run's progress).
    func writeImportBatch(
        _ items: [ImportItem], runID: Int64, deriver: SummaryDeriver, allowDowngrade: Bool,
        progress: RunStatistics
    ) throws(RederiveError) -> ImportBatchCounts
    /// Whether an export file with this content hash was already imported.
    func hasImportedFile(contentHash: String) throws(RederiveError) -> Bool
}
