/// What `copy-store` runs on both stores to carry the run history, the summary history and
/// the failure ledger (`HistoryCopy`).
package protocol HistoryCopying: StoreHandle {
    /// The dialect `HistoryCopy` renders this store's statements in.
    var dialect: StoreDialect { get }
    /// Runs `statements` (`HistoryCopy`'s, rendered in `dialect`) in one transaction with
    /// engine-neutral values; returns each one's rows.
    func executeShared(_ statements: [HistoryCopy.Statement]) throws(RederiveError) -> [[[StoredValue]]]
    /// Statements that bring the run id generator past ids inserted explicitly (none where
    /// the next id is always the highest plus one, as in SQLite).
    var runIDFixups: [String] { get }
}
