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
    /// The fault recorded for an export file with this content hash, if it had one.
    func faultedFile(contentHash: String) throws(RederiveError) -> FaultedFile?
    /// Records (or replaces) the fault of an export file, by its content hash.
    func recordFaultedFile(_ file: FaultedFile) throws(RederiveError)
}
