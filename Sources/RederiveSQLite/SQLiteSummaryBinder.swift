import GRDBSQLite
import RederiveCore

/// Binds a summary write's values (`SummaryColumn.bind`) to a prepared statement's next
/// parameters through SQLite's C API, keeping the first failure's code.
struct SQLiteSummaryBinder: SummaryValueSink {
    let statement: OpaquePointer
    /// The next parameter's index (SQLite counts from 1).
    var index: Int32 = 1
    /// `SQLITE_OK`, or the first binding's failure (the others are then skipped).
    var code = SQLITE_OK

    mutating func integer(_ value: Int64) { bind { sqlite3_bind_int64($0, $1, value) } }

    mutating func real(_ value: Double) { bind { sqlite3_bind_double($0, $1, value) } }

    mutating func text(_ value: String) {
        var text = value
        text.withUTF8 { utf8($0) }
    }

    mutating func utf8(_ bytes: UnsafeBufferPointer<UInt8>) {
        // Copied by SQLite (`SQLITE_TRANSIENT`): the bytes are only lent for this call.
        bind { sqlite3_bind_text($0, $1, bytes.baseAddress, Int32(bytes.count), Self.transient) }
    }

    private mutating func bind(_ call: (OpaquePointer, Int32) -> Int32) {
        if code == SQLITE_OK { code = call(statement, index) }
        index += 1
    }

    /// SQLite's `SQLITE_TRANSIENT` (a macro Swift does not import).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
