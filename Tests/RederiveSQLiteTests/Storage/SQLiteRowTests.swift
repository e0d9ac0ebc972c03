import GRDB
import XCTest

@testable import RederiveCore
@testable import RederiveSQLite

/// `SQLiteRow` and `KeysetFilter.rows`, the derive's page read through SQLite's C API: the
/// same values GRDB's `Row` reads (`KeysetFilter.page`), NULLs included, a row's text given back
/// as the string before it when its bytes are the same, and the statement reset after each page.
final class SQLiteRowTests: XCTestCase {
    private let text = "Wohnzimmer \u{1F3E0} \"quoted\" \u{0301}é, long enough not to be a small string"

    private func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE record (seq INTEGER PRIMARY KEY, n INTEGER, t TEXT, b BLOB)")
            try db.execute(
                sql: "INSERT INTO record VALUES (1, -7, ?, ?), (2, NULL, NULL, NULL), (3, ?, '', x''), "
                    + "(4, 0, 'x', x'00ff')",
                arguments: [text, Data([0x7B, 0x00, 0x7D]), Int64.min])
        }
        return queue
    }

    private struct Values: Equatable {
        var seq: Int64
        var n: Int64?
        var t: String?
        var b: [UInt8]
    }

    func testRowsReadWhatGRDBReads() throws {
        let queue = try database()
        let select = "SELECT seq, n, t, b FROM record"
        let (direct, grdb) = try queue.read { db in
            let direct = try KeysetFilter().rows(db, select, after: 0, upTo: 10, limit: 10) { row in
                Values(
                    seq: row.int64(0), n: row.optionalInt64(1), t: row.optionalText(2), b: row.bytes(3))
            }
            let grdb = try KeysetFilter().page(db, select, after: 0, upTo: 10, limit: 10) { row in
                Values(seq: row[0], n: row[1], t: row[2], b: (row[3] as Data?).map { [UInt8]($0) } ?? [])
            }
            return (direct, grdb)
        }
        XCTAssertEqual(direct.count, 4)
        XCTAssertEqual(direct, grdb)
        XCTAssertEqual(direct[0].t, text)
        XCTAssertEqual(direct[0].b, [0x7B, 0x00, 0x7D])
        XCTAssertEqual(direct[1], Values(seq: 2, n: nil, t: nil, b: []))
        XCTAssertEqual(direct[2].n, Int64.min)
        XCTAssertEqual(direct[2].t, "")
    }

    func testPagesFollowTheKeysetAndReuseTheStatement() throws {
        let queue = try database()
        let select = "SELECT seq, n, t, b FROM record"
        var filter = KeysetFilter()
        filter.and("record.n IS NOT NULL")
        let pages = try queue.read { db in
            // The same cached statement twice, the first left after its limit: it was reset.
            [
                try filter.rows(db, select, after: 0, upTo: 10, limit: 1) { $0.int64(0) },
                try filter.rows(db, select, after: 1, upTo: 10, limit: 5) { $0.int64(0) },
                try filter.rows(db, select, after: 0, upTo: 3, limit: 5) { $0.int64(0) },
            ]
        }
        XCTAssertEqual(pages, [[1], [3, 4], [1, 3]])
        // Reset after the last page: the read transaction ends, and a write goes through.
        try queue.write { try $0.execute(sql: "DELETE FROM record") }
    }

    func testWithBytesReadsInPlaceAndNilForNull() throws {
        let queue = try database()
        let seen = try queue.read { db in
            try KeysetFilter().rows(db, "SELECT seq, b FROM record", after: 0, upTo: 10, limit: 10) { row in
                row.withBytes(1) { $0.map { Array($0) } }
            }
        }
        XCTAssertEqual(seen, [[0x7B, 0x00, 0x7D], nil, nil, [0x00, 0xFF]])
    }

    /// `text(_:sameAs:)` reads what `text(_:)` reads, row after row, whatever the row before held
    /// (the same text, another, an empty one, NULL, or text cut at a NUL byte as GRDB cuts it).
    func testTextSameAsTheLastReadsWhatTextReads() throws {
        let queue = try database()
        try queue.write { db in
            try db.execute(
                sql: "INSERT INTO record VALUES (5, 1, ?, NULL), (6, 1, ?, NULL), "
                    + "(7, 1, CAST(x'61006263' AS TEXT), NULL), (8, 1, 'a', NULL)",
                arguments: [text, text])
        }
        let (sameAs, plain) = try queue.read { db in
            var last = ""
            var lastOptional = "stale"
            let select = "SELECT seq, t FROM record"
            let sameAs = try KeysetFilter().rows(db, select, after: 0, upTo: 10, limit: 10) { row in
                [row.text(1, sameAs: &last), row.optionalText(1, sameAs: &lastOptional) ?? "<null>"]
            }
            let plain = try KeysetFilter().rows(db, select, after: 0, upTo: 10, limit: 10) { row in
                [row.text(1), row.optionalText(1) ?? "<null>"]
            }
            return (sameAs, plain)
        }
        XCTAssertEqual(sameAs.count, 8)
        XCTAssertEqual(sameAs, plain)
        XCTAssertEqual(plain[6], ["a", "a"], "text cut at its NUL byte, as before")
        XCTAssertEqual(plain[7], ["a", "a"])
    }
}
