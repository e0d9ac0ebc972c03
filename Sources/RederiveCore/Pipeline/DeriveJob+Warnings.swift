extension DeriveJob {
    /// What a derive was asked for and could not do: ids that name no stored record, and a
    /// retry-failed run that found nothing to retry while the ledger holds failures of
    /// records that were never stored (only a new import of their export can retry those).
    /// Ranges that failed after their last attempt are named too. Any of these makes a run
    /// that would exit 0 exit 3.
    func warnings(_ stats: RunStatistics) throws(RederiveError) -> [String] {
        var warnings: [String] = []
        if let ids = config.selection.ids {
            let unknown = try store.unknownRecordIDs(ids)
            if !unknown.isEmpty {
                warnings.append(
                    "\(unknown.count) of \(ids.count) id\(ids.count == 1 ? "" : "s") not found in "
                        + "\(store.path): \(unknown.joined(separator: ", "))")
            }
        }
        if config.selection.retryFailed, stats.recordsRead == 0 {
            let unstored = try store.unstoredFailuresByFile()
            let total = unstored.reduce(0) { $0 + $1.count }
            if total > 0 {
                let files = unstored.map { "\($0.file) (\($0.count))" }.joined(separator: ", ")
                warnings.append(
                    "nothing to retry: the \(total) open failure\(total == 1 ? " is" : "s are") of records "
                        + "never stored (they failed during import), which a derive cannot retry; fix the export and "
                        + "import it again: \(files)")
            }
        }
        if let claims = rangeClaims {
            let failed = try claims.failedRanges(runID: runID)
            if !failed.isEmpty {
                let shown = failed.prefix(10).map { f in
                    "\(f.seqFrom)...\(f.seqTo) (\(f.attempts) attempts\(f.lastError.map { ": " + $0 } ?? ""))"
                }
                warnings.append(
                    "\(failed.count) range\(failed.count == 1 ? "" : "s") of run \(runID) failed after their last "
                        + "attempt and \(failed.count == 1 ? "was" : "were") not derived: "
                        + shown.joined(separator: "; ") + (failed.count > 10 ? "; …" : ""))
            }
        }
        return warnings
    }
}
