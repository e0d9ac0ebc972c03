import GRDB
import XCTest

@testable import RederiveCore
@testable import RederiveSQLite

/// `Statement.execute(bound:)`, the summary upsert's binding through SQLite's C API: the same
/// stored values as GRDB's own arguments, and SQLite's errors surfaced, not swallowed.
final class StatementBoundTests: XCTestCase {
    private func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (a INTEGER PRIMARY KEY, b REAL, c TEXT, d TEXT NOT NULL)")
        }
        return queue
    }

    func testBoundValuesAreStoredAsGRDBStoresThem() throws {
        let queue = try database()
        let text = "Wohnzimmer \u{1F3E0} \"quoted\" 'single' \u{0301}é"
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, ?)")
            try insert.execute(bound: [.integer(Int64.max), .real(-0.125), .null, .text(text)])
            // The same statement again: bindings are reset between executions.
            try insert.execute(bound: [.integer(-1), .real(1e300), .text(""), .text("x")])
            try db.execute(
                sql: "INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, ?)", arguments: [7, -0.125, nil, text])
        }
        let rows = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT a, b, c, d, typeof(b), typeof(c) FROM t ORDER BY a")
        }
        XCTAssertEqual(rows.count, 3)
        XCTAssertEqual(rows[0]["a"] as Int64, -1)
        XCTAssertEqual(rows[0]["b"] as Double, 1e300)
        XCTAssertEqual(rows[0]["c"] as String?, "")
        XCTAssertEqual(rows[2]["a"] as Int64, Int64.max)
        // Bound through the C API and through GRDB: the same bytes and types.
        for (bound, grdb) in [(rows[2], rows[1])] {
            XCTAssertEqual(bound["b"] as Double, grdb["b"] as Double)
            XCTAssertEqual(bound["c"] as String?, nil)
            XCTAssertEqual(bound["d"] as String, grdb["d"] as String)
            XCTAssertEqual(bound["d"] as String, text)
            XCTAssertEqual(bound[4] as String, "real")
            XCTAssertEqual(bound[5] as String, "null")
        }
    }

    func testAConstraintViolationThrowsWithSQLitesMessage() throws {
        let queue = try database()
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, ?)")
            XCTAssertThrowsError(try insert.execute(bound: [.integer(1), .real(0), .null, .null])) { error in
                let error = error as? DatabaseError
                XCTAssertEqual(error?.resultCode, .SQLITE_CONSTRAINT)
                XCTAssertTrue(error?.message?.contains("NOT NULL") == true, "\(String(describing: error))")
            }
            // The statement is usable again after the failure.
            try insert.execute(bound: [.integer(2), .real(0), .null, .text("ok")])
        }
        XCTAssertEqual(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") }, 1)
    }
}
