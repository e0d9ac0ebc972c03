import GRDB
import GRDBSQLite
import RederiveCore

extension Statement {
    /// Runs this statement (one that returns no rows) with `values` bound through SQLite's C
    /// API. GRDB's `StatementArguments` are built by an unspecialized generic map across its
    /// module boundary: for the summary upsert, run once per record, that cost 4% of a derive.
    /// Same values, same SQLite bindings (`sqlite3_bind_int64`, `_double`, `_text`, `_null`).
    func execute(bound values: [StoredValue]) throws {
        let statement = sqliteStatement
        var code = sqlite3_reset(statement)
        if code == SQLITE_OK { code = sqlite3_clear_bindings(statement) }
        for (offset, value) in values.enumerated() where code == SQLITE_OK {
            let index = Int32(offset + 1)
            switch value {
            case .null: code = sqlite3_bind_null(statement, index)
            case .integer(let int): code = sqlite3_bind_int64(statement, index, int)
            case .real(let double): code = sqlite3_bind_double(statement, index, double)
            case .text(var text):
                code = text.withUTF8 {
                    sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), Self.transient)
                }
            }
        }
        try step(after: code)
    }

    /// Runs this statement (the summary upsert, `StoredSummary.upsertSQL`) for record `seq` and a
    /// summary write's values, bound straight from the summary (`SummaryColumn.bind`): what
    /// `StoredSummary(summary:json:deriver:runID:now:).upsert` binds, without building the stored
    /// summary or a `String` of the JSON.
    func executeSummaryWrite(
        seq: Int64, summary: RoomSummary, json: [UInt8], deriver: SummaryDeriver, runID: Int64, now: String
    ) throws {
        let statement = sqliteStatement
        var binder = SQLiteSummaryBinder(statement: statement)
        binder.code = sqlite3_reset(statement)
        if binder.code == SQLITE_OK { binder.code = sqlite3_clear_bindings(statement) }
        binder.integer(seq)
        SummaryColumn.bind(summary: summary, json: json, deriver: deriver, runID: runID, now: now, to: &binder)
        try step(after: binder.code)
    }

    /// Steps this statement once its values are bound (`code`: how the binding went), then resets
    /// it and clears its bindings whatever happened; throws SQLite's error.
    private func step(after bindingCode: Int32) throws {
        let statement = sqliteStatement
        var code = bindingCode
        if code == SQLITE_OK {
            code = sqlite3_step(statement)
            if code == SQLITE_DONE { code = SQLITE_OK }
        }
        let message = code == SQLITE_OK ? nil : sqlite3_errmsg(sqlite3_db_handle(statement)).map { String(cString: $0) }
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        if code != SQLITE_OK { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql) }
    }

    /// SQLite's `SQLITE_TRANSIENT` (a macro Swift does not import): SQLite copies the bytes.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
