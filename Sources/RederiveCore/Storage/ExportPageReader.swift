/// What an export reads: pages of records with their summaries by keyset, and how many
/// are not fresh.
package protocol ExportPageReader: StoreHandle {
    /// The next export page by keyset.
    func fetchExportPage(
        includeStale: Bool, derivedSince: String?, deriver: SummaryDeriver, after: Int64, upTo: Int64, limit: Int
    ) throws(RederiveError) -> [ExportRow]
    /// The export's rows up to `upTo`, in seq order, in batches of `limit`: the pages of
    /// `fetchExportPage` unless the engine streams them in one read.
    func exportBatches(
        includeStale: Bool, derivedSince: String?, deriver: SummaryDeriver, upTo: Int64, limit: Int
    ) throws(RederiveError) -> RowBatches<ExportRow>
    /// Records up to `upTo` whose summary is stale or missing for `deriver`.
    func countNotFresh(upTo: Int64, deriver: SummaryDeriver) throws(RederiveError) -> (stale: Int, missing: Int)
}

extension ExportPageReader {
    /// Keyset pages of `fetchExportPage`.
    package func exportBatches(
        includeStale: Bool, derivedSince: String?, deriver: SummaryDeriver, upTo: Int64, limit: Int
    ) throws(RederiveError) -> RowBatches<ExportRow> {
        .keyset(limit: limit, store: path, key: \.seq) { after, limit throws(RederiveError) in
            try self.fetchExportPage(
                includeStale: includeStale, derivedSince: derivedSince, deriver: deriver, after: after, upTo: upTo,
                limit: limit)
        }
    }
}
