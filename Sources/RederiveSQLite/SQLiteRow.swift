import GRDBSQLite

#if canImport(Glibc)
import Glibc
#endif

/// The current row of a stepped SQLite statement, read through SQLite's C API by column
/// position (`KeysetFilter.rows`). A derive reads every stored room this way: GRDB's `Row`
/// decodes each value through its generic conversions and copies a blob through Foundation's
/// `Data`, which cost the reading thread about a third of its time. Text is read as GRDB
/// reads it (`String(cString:)` of `sqlite3_column_text`), so values are the same.
struct SQLiteRow {
    let statement: OpaquePointer

    /// Whether column `index` is NULL.
    func isNull(_ index: Int) -> Bool { sqlite3_column_type(statement, Int32(index)) == SQLITE_NULL }

    /// Column `index` as an integer (NULL reads as 0).
    func int64(_ index: Int) -> Int64 { sqlite3_column_int64(statement, Int32(index)) }

    /// Column `index` as an integer, nil when NULL.
    func optionalInt64(_ index: Int) -> Int64? { isNull(index) ? nil : int64(index) }

    /// Column `index` as text (NULL reads as "").
    func text(_ index: Int) -> String {
        sqlite3_column_text(statement, Int32(index)).map { String(cString: $0) } ?? ""
    }

    /// Column `index` as text, nil when NULL.
    func optionalText(_ index: Int) -> String? { isNull(index) ? nil : text(index) }

    /// Column `index` as text (`text(_:)`), giving back `last` itself when the column holds its
    /// bytes: a page's rows mostly share their source file and fingerprint, and each new string
    /// was allocated on the reading thread and freed on another.
    func text(_ index: Int, sameAs last: inout String) -> String {
        // One `memcmp`: a generic walk byte by byte was most of this, twice a record.
        let same = withBytes(index) { column in
            var known = last
            return known.withUTF8 { known in
                guard let column else { return known.isEmpty }
                guard column.count == known.count, let a = column.baseAddress, let b = known.baseAddress else {
                    return column.count == known.count
                }
                return memcmp(a, b, known.count) == 0
            }
        }
        if !same { last = text(index) }
        return last
    }

    /// `optionalText(_:)`, giving back `last` itself when the column holds its bytes (`text(_:sameAs:)`).
    func optionalText(_ index: Int, sameAs last: inout String) -> String? {
        isNull(index) ? nil : text(index, sameAs: &last)
    }

    /// Column `index`'s bytes (a blob's, or a text's UTF-8); empty when NULL.
    func bytes(_ index: Int) -> [UInt8] {
        withBytes(index) { column in column.map { Array($0) } ?? [] }
    }

    /// `body` over column `index`'s bytes in SQLite's own buffer (valid until the next step),
    /// nil when NULL or empty.
    func withBytes<T>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>?) throws -> T) rethrows -> T {
        let column = Int32(index)
        guard let start = sqlite3_column_blob(statement, column) else { return try body(nil) }
        let count = Int(sqlite3_column_bytes(statement, column))
        return try body(UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count))
    }
}
