import GRDB
import XCTest

@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport

/// `Statement.execute(bound:)`, the summary upsert's binding through SQLite's C API: the same
/// stored values as GRDB's own arguments, and SQLite's errors surfaced, not swallowed; and
/// `executeSummaryWrite`, the same row bound straight from the summary.
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

    /// A summary write bound straight from the summary (`executeSummaryWrite`, what a derive and an
    /// import run per record) stores the row `StoredSummary(...).upsert` stores: every column's
    /// value and type, the JSON's bytes as they are; as an insert and as the upsert's update.
    func testASummaryWriteStoresTheRowAStoredSummaryStores() throws {
        let queue = try DatabaseQueue()
        let columns = SummaryColumn.allCases.map {
            "\($0.name) \($0.kind == .real ? "REAL" : $0.kind == .integer ? "INTEGER" : "TEXT")"
        }
        try queue.write { db in
            try db.execute(
                sql: "CREATE TABLE summary (record_seq INTEGER PRIMARY KEY, \(columns.joined(separator: ", ")))")
        }
        let deriver = SummaryDeriver()
        let now = "2026-11-28T01:02:03Z"
        let summaries = [
            RoomSummary.sample(),
            RoomSummary.sample {
                $0.roomShape = "irregular (9 walls) \u{1F3E0}"
                $0.estimatedFloorAreaSqm = 12.345678901
                $0.floorAreaMethod = .wallOutline
            },
        ]
        try queue.write { db in
            let upsert = try db.cachedStatement(sql: StoredSummary.upsertSQL)
            for (index, summary) in summaries.enumerated() {
                let json = summary.jsonBytes()
                try StoredSummary(
                    summary: summary, json: String(decoding: json, as: UTF8.self), deriver: deriver, runID: 7, now: now
                ).upsert(db, seq: Int64(2 * index + 1), statement: upsert)
                try upsert.executeSummaryWrite(
                    seq: Int64(2 * index + 2), summary: summary, json: json, deriver: deriver, runID: 7, now: now)
            }
            // The upsert's update: the second summary over the first one's row, both ways.
            let json = summaries[1].jsonBytes()
            try StoredSummary(
                summary: summaries[1], json: String(decoding: json, as: UTF8.self), deriver: deriver, runID: 8, now: now
            ).upsert(db, seq: 1, statement: upsert)
            try upsert.executeSummaryWrite(
                seq: 2, summary: summaries[1], json: json, deriver: deriver, runID: 8, now: now)
        }
        let select = SummaryColumn.allCases.map { "\($0.name), typeof(\($0.name))" }.joined(separator: ", ")
        let rows = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT \(select) FROM summary ORDER BY record_seq").map {
                Array($0.databaseValues)
            }
        }
        XCTAssertEqual(rows.count, 4)
        for pair in stride(from: 0, to: rows.count, by: 2) {
            XCTAssertEqual(rows[pair + 1], rows[pair], "records \(pair + 1) and \(pair + 2)")
        }
        XCTAssertNotEqual(rows[0], rows[2], "the update changed the row")
        let stored = try queue.read { db in
            try String.fetchOne(db, sql: "SELECT summary_json FROM summary WHERE record_seq = 2")
        }
        XCTAssertEqual(stored, String(decoding: summaries[1].jsonBytes(), as: UTF8.self))
    }
}
