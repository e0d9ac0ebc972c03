/// What a derive (and its dry run and plan checks) reads: the selected records by keyset,
/// their counts and ids. An engine that can split a derive across processes says so with
/// `rangeClaims` (nil: one process walks the selection alone, as SQLite does).
package protocol DeriveSource: StoreHandle {
    /// How many records a selection holds between the bounds.
    func countSelected(
        _ selection: DeriveSelection, deriver: SummaryDeriver, allowDowngrade: Bool, after: Int64, upTo: Int64
    ) throws(RederiveError) -> Int
    /// The next batch by keyset: `seq > after AND seq <= upTo ORDER BY seq LIMIT limit`.
    func fetchRooms(
        _ selection: DeriveSelection, deriver: SummaryDeriver, allowDowngrade: Bool, after: Int64, upTo: Int64,
        limit: Int
    ) throws(RederiveError) -> [StoredRoom]
    /// Ids of up to `limit` selected records past key `after`.
    func selectedIDs(
        _ selection: DeriveSelection, deriver: SummaryDeriver, allowDowngrade: Bool, after: Int64, limit: Int
    ) throws(RederiveError) -> [String]
    /// Which of `ids` name no stored record, in the order given.
    func unknownRecordIDs(_ ids: [String]) throws(RederiveError) -> [String]
    /// Open failures of records never stored, by export file.
    func unstoredFailuresByFile() throws(RederiveError) -> [(file: String, count: Int)]
    /// Range claims across processes, when the engine has them (nil: a single keyset walk).
    var rangeClaims: (any DeriveRangeClaims)? { get }
}
