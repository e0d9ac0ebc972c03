import GRDB
import GRDBSQLite
import RederiveCore

/// A derive batch's restamp: the run and the time written to summaries already stored as
/// derived (`SummaryReplacement.sameSummary`, a `--rewrite` of unchanged records), as PostgreSQL's
/// restamp does. The full write bound every column of each (its JSON copied by SQLite) to store
/// the same values again. The batch's keys go in one statement (`batchSQL`); only when it finds
/// fewer rows than keys are they restamped again one by one (`sql`), to learn which ones the
/// caller must write in full.
struct SQLiteSummaryRestamp {
    /// `?1` the time, `?2` the run, `?3` the record's key, `?4` and `?5` the deriver's version and
    /// fingerprint: only while the stored summary is still that deriver's (otherwise no row changes).
    static let sql = """
        UPDATE summary SET \(SummaryColumn.derivedAt.name) = ?1, \(SummaryColumn.runID.name) = ?2
        WHERE record_seq = ?3 AND \(SummaryColumn.summaryVersion.name) = ?4
            AND \(SummaryColumn.fingerprint.name) = ?5
        """

    /// `sql` for every key of the JSON array `?3`. One statement a batch: a statement a key cost
    /// each its own execution (a record buffer allocated and freed, the statement halted and
    /// reset). The version and fingerprint are a guard kept out of the plan (`+`): with them the
    /// planner found each key through `summary_by_version`, then the table.
    static let batchSQL = """
        UPDATE summary SET \(SummaryColumn.derivedAt.name) = ?1, \(SummaryColumn.runID.name) = ?2
        WHERE record_seq IN (SELECT value FROM json_each(?3)) AND +\(SummaryColumn.summaryVersion.name) = ?4
            AND +\(SummaryColumn.fingerprint.name) = ?5
        """

    private let db: Database
    private let deriver: SummaryDeriver
    private let runID: Int64
    private let now: String
    /// The statement of `sql` with the batch's values bound (prepared on first use).
    private var single: Statement?

    /// The restamp of run `runID` at `now` for `deriver`'s summaries, in `db`'s transaction.
    init(_ db: Database, deriver: SummaryDeriver, runID: Int64, now: String) {
        (self.db, self.deriver, self.runID, self.now) = (db, deriver, runID, now)
    }

    /// Restamps the summaries of records `seqs` (each once); whether it found every one.
    func all(_ seqs: [Int64]) throws -> Bool {
        let statement = try db.cachedStatement(sql: Self.batchSQL)
        let keys = "[" + seqs.map(String.init).joined(separator: ",") + "]"
        var code = bindBatchValues(statement.sqliteStatement)
        if code == SQLITE_OK { code = Self.bind(keys, statement.sqliteStatement, 3) }
        return try run(statement, code) == seqs.count
    }

    /// Restamps record `seq`'s summary; false when it is not the deriver's (nothing written).
    mutating func callAsFunction(_ seq: Int64) throws -> Bool {
        var code = SQLITE_OK
        if single == nil {
            let statement = try db.cachedStatement(sql: Self.sql)
            code = bindBatchValues(statement.sqliteStatement)
            single = statement
        }
        guard let single else { return false }
        // Reset, not cleared, after each key: the batch's values stay bound.
        if code == SQLITE_OK { code = sqlite3_bind_int64(single.sqliteStatement, 3, seq) }
        return try run(single, code) > 0
    }

    /// Binds the values every key shares (`?1`, `?2`, `?4`, `?5`).
    private func bindBatchValues(_ handle: OpaquePointer) -> Int32 {
        var code = sqlite3_reset(handle)
        if code == SQLITE_OK { code = sqlite3_clear_bindings(handle) }
        if code == SQLITE_OK { code = Self.bind(now, handle, 1) }
        if code == SQLITE_OK { code = sqlite3_bind_int64(handle, 2, runID) }
        if code == SQLITE_OK { code = sqlite3_bind_int64(handle, 4, Int64(deriver.version)) }
        if code == SQLITE_OK { code = Self.bind(deriver.fingerprint, handle, 5) }
        return code
    }

    /// Steps `statement` once its values are bound (`code`: how the binding went), then resets
    /// it; the rows it changed, or SQLite's error thrown.
    private func run(_ statement: Statement, _ bindingCode: Int32) throws -> Int {
        let handle = statement.sqliteStatement
        var code = bindingCode
        if code == SQLITE_OK {
            code = sqlite3_step(handle)
            if code == SQLITE_DONE { code = SQLITE_OK }
        }
        let changed = code == SQLITE_OK ? Int(sqlite3_changes(sqlite3_db_handle(handle))) : 0
        let message = code == SQLITE_OK ? nil : sqlite3_errmsg(sqlite3_db_handle(handle)).map { String(cString: $0) }
        sqlite3_reset(handle)
        if code != SQLITE_OK {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
        return changed
    }

    private static func bind(_ text: String, _ handle: OpaquePointer, _ index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), transient) }
    }

    /// SQLite's `SQLITE_TRANSIENT` (a macro Swift does not import): SQLite copies the bytes.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
