import GRDB
import GRDBSQLite
import RederiveCore

/// A derive batch's restamp (`sql`): the run and the time written to summaries already stored as
/// derived (`SummaryReplacement.sameSummary`, a `--rewrite` of unchanged records), as PostgreSQL's
/// restamp does. The full write bound every column of each (its JSON copied by SQLite) to store
/// the same values again. The run, the time and the deriver are bound once for the batch; each
/// record binds only its key.
struct SQLiteSummaryRestamp {
    /// `?1` the time, `?2` the run, `?3` the record's key, `?4` and `?5` the deriver's version and
    /// fingerprint: only while the stored summary is still that deriver's (otherwise no row changes).
    static let sql = """
        UPDATE summary SET \(SummaryColumn.derivedAt.name) = ?1, \(SummaryColumn.runID.name) = ?2
        WHERE record_seq = ?3 AND \(SummaryColumn.summaryVersion.name) = ?4
            AND \(SummaryColumn.fingerprint.name) = ?5
        """

    private let statement: Statement

    /// The restamp of run `runID` at `now` for `deriver`'s summaries, in `db`'s transaction.
    init(_ db: Database, deriver: SummaryDeriver, runID: Int64, now: String) throws {
        statement = try db.cachedStatement(sql: Self.sql)
        let handle = statement.sqliteStatement
        var code = sqlite3_reset(handle)
        if code == SQLITE_OK { code = sqlite3_clear_bindings(handle) }
        if code == SQLITE_OK { code = Self.bind(now, handle, 1) }
        if code == SQLITE_OK { code = sqlite3_bind_int64(handle, 2, runID) }
        if code == SQLITE_OK { code = sqlite3_bind_int64(handle, 4, Int64(deriver.version)) }
        if code == SQLITE_OK { code = Self.bind(deriver.fingerprint, handle, 5) }
        try check(code)
    }

    /// Restamps record `seq`'s summary; false when it is not the deriver's (nothing written).
    func callAsFunction(_ seq: Int64) throws -> Bool {
        let handle = statement.sqliteStatement
        // Reset, not cleared: the batch's values stay bound.
        var code = sqlite3_bind_int64(handle, 3, seq)
        if code == SQLITE_OK {
            code = sqlite3_step(handle)
            if code == SQLITE_DONE { code = SQLITE_OK }
        }
        let changed = code == SQLITE_OK && sqlite3_changes(sqlite3_db_handle(handle)) > 0
        try check(code)
        return changed
    }

    /// Throws SQLite's error for `code` (resetting the statement whatever it is).
    private func check(_ code: Int32) throws {
        let handle = statement.sqliteStatement
        let message = code == SQLITE_OK ? nil : sqlite3_errmsg(sqlite3_db_handle(handle)).map { String(cString: $0) }
        sqlite3_reset(handle)
        if code != SQLITE_OK {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }

    private static func bind(_ text: String, _ handle: OpaquePointer, _ index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), transient) }
    }

    /// SQLite's `SQLITE_TRANSIENT` (a macro Swift does not import): SQLite copies the bytes.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
