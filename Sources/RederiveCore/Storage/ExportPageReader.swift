/// What an export reads: pages of records with their summaries by keyset, and how many
/// are not fresh.
package protocol ExportPageReader: StoreHandle {
    /// The next export page by keyset.
    func fetchExportPage(
        includeStale: Bool, derivedSince: String?, deriver: SummaryDeriver, after: Int64, upTo: Int64, limit: Int
    ) throws(RederiveError) -> [ExportRow]
    /// Records up to `upTo` whose summary is stale or missing for `deriver`.
    func countNotFresh(upTo: Int64, deriver: SummaryDeriver) throws(RederiveError) -> (stale: Int, missing: Int)
}
