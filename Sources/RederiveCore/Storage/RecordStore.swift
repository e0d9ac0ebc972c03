/// The operations batch jobs use on a store, whatever engine keeps it: the embedded SQLite
/// engine (target `RederiveSQLite`), or the PostgreSQL engine (target `RederivePostgres`). Jobs, `RunRecording` and
/// pipelines hold `any RecordStore` and never learn which engine they run on.
///
/// Every method is synchronous and throws only `RederiveError` (fatal faults); each write
/// is one transaction. An engine that can split a derive across processes says so with
/// `rangeClaims` (nil: one process walks the selection alone, as SQLite does).
package protocol RecordStore: AnyObject, Sendable {
    /// What names the store in messages and reports (a file path, or a URL without password).
    var path: String { get }
    /// Releases the store (idempotent).
    func close()
    /// The store's random identity (plans are bound to it).
    func storeID() throws(RederiveError) -> String
    /// What the store holds and how current it is for `deriver`, with the latest runs.
    func status(deriver: SummaryDeriver, runLimit: Int) throws(RederiveError) -> StoreStatus

    // MARK: Run history

    /// Records a new run, continuing (or, where ranges are claimed, joining) an unfinished
    /// run with the same `resumeKey`.
    func beginRun(
        command: String, pipeline: String?, arguments: String, resumeKey: String?,
        deriver: SummaryDeriver, allowDowngrade: Bool, rejoin: Bool
    ) throws(RederiveError) -> RunStart
    /// Sets the fixed upper bound of a run's keyset walk.
    func setUpperBound(runID: Int64, upperBoundSeq: Int64) throws(RederiveError)
    /// The runs recorded under `resumeKey`, oldest first (a plan's applies).
    func runs(resumeKey: String) throws(RederiveError) -> [RecordedRun]
    /// The id of the latest run in the history (0: none).
    func lastRunID() throws(RederiveError) -> Int64
    /// The summary-history rows left by runs after run `afterRun` for records with keys in
    /// `after...upTo` (exclusive, inclusive), by record key.
    func replacedSummaries(afterRun: Int64, after: Int64, upTo: Int64) throws(RederiveError) -> [ReplacedSummary]
    /// Records how a run ended.
    func finishRun(
        _ runID: Int64, status: RunStatus, exitStatus: Int32, statistics: RunStatistics)
        throws(RederiveError)

    // MARK: Derive

    /// The highest record key now.
    func maxSeq() throws(RederiveError) -> Int64
    /// How many records a selection holds between the bounds.
    func countSelected(
        _ selection: DeriveSelection, deriver: SummaryDeriver, allowDowngrade: Bool, after: Int64, upTo: Int64
    ) throws(RederiveError) -> Int
    /// The next batch by keyset: `seq > after AND seq <= upTo ORDER BY seq LIMIT limit`.
    func fetchRooms(
        _ selection: DeriveSelection, deriver: SummaryDeriver, allowDowngrade: Bool, after: Int64, upTo: Int64,
        limit: Int
    ) throws(RederiveError) -> [StoredRoom]
    /// Writes one derive batch and the run's checkpoint in one transaction; returns the
    /// failures new to the ledger.
    func writeDeriveBatch(
        _ writes: [DeriveWrite], runID: Int64, deriver: SummaryDeriver, checkpointSeq: Int64,
        progress: RunStatistics
    ) throws(RederiveError) -> Int
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

    // MARK: Import

    /// Writes one import batch in one transaction (with the run's progress).
    func writeImportBatch(
        _ items: [ImportItem], runID: Int64, deriver: SummaryDeriver, allowDowngrade: Bool,
        progress: RunStatistics
    ) throws(RederiveError) -> ImportBatchCounts
    /// Whether an export file with this content hash was already imported.
    func hasImportedFile(contentHash: String) throws(RederiveError) -> Bool

    // MARK: Export

    /// The next export page by keyset.
    func fetchExportPage(
        includeStale: Bool, derivedSince: String?, deriver: SummaryDeriver, after: Int64, upTo: Int64, limit: Int
    ) throws(RederiveError) -> [ExportRow]
    /// How many records exist up to `upTo`.
    func countRecords(upTo: Int64) throws(RederiveError) -> Int
    /// Records up to `upTo` whose summary is stale or missing for `deriver`.
    func countNotFresh(upTo: Int64, deriver: SummaryDeriver) throws(RederiveError) -> (stale: Int, missing: Int)

    // MARK: Copy (rederive copy-store)

    /// The next page of records to copy by keyset (`seq > after AND seq <= upTo ORDER BY seq
    /// LIMIT limit`): metadata and raw room as stored, nothing derived.
    func fetchCopyPage(after: Int64, upTo: Int64, limit: Int) throws(RederiveError) -> [CopyRow]

    // MARK: Revert

    /// Whether run `id` exists, and its command.
    func runCommand(id: Int64) throws(RederiveError) -> String?
    /// The highest history row run `run` left.
    func maxHistoryID(replacedBy run: Int64) throws(RederiveError) -> Int64
    /// The next summaries run `run` replaced, by history key.
    func fetchRevertCandidates(
        replacedBy run: Int64, after: Int64, upTo: Int64, limit: Int
    )
        throws(RederiveError) -> [RevertCandidate]
    /// Restores summaries in one transaction with the revert run's checkpoint, keeping what
    /// each record held in the history under the revert run first.
    func writeRevertBatch(
        _ restores: [(seq: Int64, summary: SummaryColumns)], runID: Int64, checkpoint: Int64,
        progress: RunStatistics
    ) throws(RederiveError)
    /// Deletes the history of all but the latest `keepRuns` runs that replaced summaries and
    /// (when given) what was replaced before `before` (ISO 8601, UTC); returns the rows removed.
    func pruneHistory(keepRuns: Int?, before: String?) throws(RederiveError) -> Int
    /// How many summaries run `run` replaced whose history was pruned (0: none known).
    func prunedHistoryCount(of run: Int64) throws(RederiveError) -> Int
    /// Deletes the derive range rows of the runs `history --prune` prunes: all but the latest
    /// `keepRuns` runs that have ranges, and (when given) runs that ended before `before`;
    /// never those of a run a rerun could still continue. Returns the rows removed, or nil on
    /// an engine without ranges.
    func pruneRanges(keepRuns: Int?, before: String?) throws(RederiveError) -> Int?

    // MARK: History copy (rederive copy-store)

    /// Runs `statements` (SQL both engines read, see `HistoryCopy`) in one transaction with
    /// engine-neutral values; returns each one's rows.
    func executeShared(_ statements: [HistoryCopy.Statement]) throws(RederiveError) -> [[[SummaryColumns.Value]]]
    /// Statements that bring the run id generator past ids inserted explicitly (none where
    /// the next id is always the highest plus one, as in SQLite).
    var runIDFixups: [String] { get }

    // MARK: Inspect

    /// Everything stored about the record `id` (canonical UUID spelling or as stored), with
    /// its staleness for `deriver`, its open failures and its summary history; nil when no
    /// record has that id.
    func record(id: String, deriver: SummaryDeriver) throws(RederiveError) -> StoredRecord?
    /// Open failures matching `filter`, in a stable order: by file, then line (file-level
    /// faults after the lines of their file; failures without a file last), then stage, code
    /// and ledger key (compared bytewise).
    func openFailures(matching filter: FailureFilter) throws(RederiveError) -> [OpenFailure]
    /// The raw room of a record, byte-exact as received, or nil for an unknown id.
    func rawRoom(id: String) throws(RederiveError) -> [UInt8]?

    // MARK: Acknowledgements (rederive failures --ack)

    /// Acknowledges the open failures `filter` matches (stamped `now`, ISO 8601 UTC): `status
    /// --check` leaves them out while they stay open as they were. Returns how many were newly
    /// acknowledged.
    func acknowledgeFailures(matching filter: FailureFilter, at now: String) throws(RederiveError) -> Int
    /// Takes back the acknowledgements of the open failures `filter` matches; returns how many.
    func unacknowledgeFailures(matching filter: FailureFilter) throws(RederiveError) -> Int
}

extension RecordStore {
    /// No ranges to prune (an engine that does not split derives).
    package func pruneRanges(keepRuns: Int?, before: String?) throws(RederiveError) -> Int? { nil }
}
