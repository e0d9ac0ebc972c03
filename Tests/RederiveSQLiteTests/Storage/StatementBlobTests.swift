import Foundation
import GRDB
import XCTest

@testable import RederiveCore
@testable import RederiveSQLite

/// `Statement.execute(integers:blob:)`, the raw room's write bound in place through SQLite's C
/// API: the same stored values as GRDB's `Data` arguments (an empty blob stays a zero-length
/// blob, never NULL), and SQLite's errors surfaced.
final class StatementBlobTests: XCTestCase {
    private func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (a INTEGER PRIMARY KEY, b INTEGER NOT NULL, c BLOB NOT NULL)")
        }
        return queue
    }

    func testBlobsAreStoredAsDataArgumentsStoreThem() throws {
        let queue = try database()
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO t (a, b, c) VALUES (?, ?, ?)")
            try insert.execute(integers: [1, -1], blob: bytes)
            // The same statement again: bindings are reset between executions.
            try insert.execute(integers: [2, 7], blob: [])
            try db.execute(sql: "INSERT INTO t (a, b, c) VALUES (?, ?, ?)", arguments: [3, -1, Data(bytes)])
            try db.execute(sql: "INSERT INTO t (a, b, c) VALUES (?, ?, ?)", arguments: [4, 7, Data()])
        }
        let rows = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT a, b, c, typeof(c), length(c) FROM t ORDER BY a")
        }
        XCTAssertEqual(rows.count, 4)
        XCTAssertEqual([UInt8](rows[0]["c"] as Data), bytes)
        for (bound, grdb) in [(rows[0], rows[2]), (rows[1], rows[3])] {
            XCTAssertEqual(bound["b"] as Int64, grdb["b"] as Int64)
            XCTAssertEqual(bound["c"] as Data, grdb["c"] as Data)
            XCTAssertEqual(bound[3] as String, "blob")
            XCTAssertEqual(bound[3] as String, grdb[3] as String)
            XCTAssertEqual(bound[4] as Int, grdb[4] as Int)
        }
        XCTAssertEqual(rows[1][4] as Int, 0, "an empty blob, not NULL")
    }

    func testAConstraintViolationThrowsWithSQLitesMessage() throws {
        let queue = try database()
        try queue.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO t (a, b, c) VALUES (?, ?, ?)")
            try insert.execute(integers: [1, 1], blob: [1])
            XCTAssertThrowsError(try insert.execute(integers: [1, 2], blob: [2])) { error in
                XCTAssertTrue("\(error)".contains("UNIQUE constraint failed"), "\(error)")
            }
            // The statement is usable after the failure.
            try insert.execute(integers: [2, 2], blob: [2])
        }
        XCTAssertEqual(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM t") }, 2)
    }
}
