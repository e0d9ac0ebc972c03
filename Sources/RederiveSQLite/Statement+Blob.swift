import GRDB
import GRDBSQLite

extension Statement {
    /// Runs this statement (one that returns no rows) with `integers` bound first and `bytes`
    /// as the last value, a blob, through SQLite's C API. The blob is bound in place
    /// (`SQLITE_STATIC`, valid for the step): a raw room's ~100 KB `coreModel` is not copied into
    /// `Data` and then again by SQLite's `SQLITE_TRANSIENT` before SQLite copies it into its pages.
    /// An empty `bytes` binds a zero-length blob, never NULL, as `Data` did.
    func execute(integers: [Int64], blob bytes: [UInt8]) throws {
        let statement = sqliteStatement
        var code = sqlite3_reset(statement)
        if code == SQLITE_OK { code = sqlite3_clear_bindings(statement) }
        for (offset, value) in integers.enumerated() where code == SQLITE_OK {
            code = sqlite3_bind_int64(statement, Int32(offset + 1), value)
        }
        let index = Int32(integers.count + 1)
        code = bytes.withUnsafeBytes { buffer in
            if code == SQLITE_OK {
                code =
                    buffer.isEmpty
                    ? sqlite3_bind_zeroblob(statement, index, 0)
                    : sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(buffer.count), nil)
            }
            if code == SQLITE_OK {
                code = sqlite3_step(statement)
                if code == SQLITE_DONE { code = SQLITE_OK }
            }
            return code
        }
        let message = code == SQLITE_OK ? nil : sqlite3_errmsg(sqlite3_db_handle(statement)).map { String(cString: $0) }
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        if code != SQLITE_OK { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql) }
    }
}
