import Foundation
import GRDB
import XCTest
import RederiveCore
import RederiveSQLite

/// Reads a store file directly (its own GRDB connection, independent of `SQLiteStore`) to compare
/// stores canonically and to tamper with them in tests.
enum StoreInspection {
    /// Which columns a dump leaves out.
    struct Exclusions {
        /// Leave out `record.seq` (rows are keyed by record id either way).
        var seq = true
        /// Leave out times (`stored_at`, `derived_at`, `first_seen_at`, `last_seen_at`, `imported_at`).
        var times = true
        /// Leave out run ids (`summary.run_id`, `failure.run_id`, `imported_file.run_id`).
        var runIDs = true

        /// Only run ids and the times a rerun may refresh.
        static let strict = Exclusions(seq: false, times: false, runIDs: true)
        /// Everything a crashed-and-resumed run may legitimately do differently.
        static let crash = Exclusions()
    }

    /// Opens a connection on the store file.
    static func open(_ path: String) throws -> DatabaseQueue {
        var config = Configuration()
        config.busyMode = .timeout(30)
        return try DatabaseQueue(path: path, configuration: config)
    }

    /// A canonical dump of every table but `run`: table name → sorted row texts. Rows of the
    /// raw and derived tables are keyed by record id; raw bytes appear as content hashes.
    static func dump(_ path: String, excluding ex: Exclusions = .crash) throws -> [String: [String]] {
        let db = try open(path)
        defer { try? db.close() }
        return try db.read { db in
            func rows(_ sql: String, dropping: Set<String>) throws -> [String] {
                try Row.fetchAll(db, sql: sql).map { row in
                    row.columnNames.filter { !dropping.contains($0) }
                        .map { "\($0)=\(row[$0] as DatabaseValue)" }.joined(separator: " | ")
                }.sorted()
            }
            var timeColumns: Set<String> =
                ex.times ? ["stored_at", "derived_at", "first_seen_at", "last_seen_at", "imported_at"] : []
            if ex.runIDs { timeColumns.insert("run_id") }
            if ex.seq { timeColumns.formUnion(["seq", "record_seq"]) }
            var out: [String: [String]] = [:]
            out["record"] = try rows("SELECT * FROM record", dropping: timeColumns)
            out["raw"] = try Row.fetchAll(
                db,
                sql: """
                    SELECT record.id, record.seq, raw_room.core_model_offset, raw_room.skeleton, raw_core_model.bytes
                    FROM record LEFT JOIN raw_room ON raw_room.record_seq = record.seq
                    LEFT JOIN raw_core_model ON raw_core_model.record_seq = record.seq
                    """
            ).map { row in
                let skeleton = (row["skeleton"] as Data?).map { ContentHash.digest([UInt8]($0)).hex } ?? "nil"
                let core = (row["bytes"] as Data?).map { ContentHash.digest([UInt8]($0)).hex } ?? "nil"
                let seq = ex.seq ? "" : " seq=\(row["seq"] as Int64)"
                let offset = String(describing: row["core_model_offset"] as Int?)
                return "id=\(row["id"] as String)\(seq) offset=\(offset) skeleton=\(skeleton) core=\(core)"
            }.sorted()
            out["summary"] = try rows(
                "SELECT record.id AS record_id, summary.* FROM summary JOIN record ON record.seq = summary.record_seq",
                dropping: timeColumns)
            out["failure"] = try rows("SELECT * FROM failure", dropping: timeColumns)
            out["imported_file"] = try rows("SELECT * FROM imported_file", dropping: timeColumns)
            return out
        }
    }

    /// Asserts two dumps are equal, table by table, naming the first rows that differ.
    static func assertEqual(
        _ a: [String: [String]], _ b: [String: [String]], _ what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(Set(a.keys), Set(b.keys), what, file: file, line: line)
        for table in a.keys.sorted() {
            let x = a[table] ?? [], y = b[table] ?? []
            if x == y { continue }
            let onlyA = Set(x).subtracting(y).sorted().prefix(2).map { String($0.prefix(400)) }
            let onlyB = Set(y).subtracting(x).sorted().prefix(2).map { String($0.prefix(400)) }
            XCTFail(
                "\(what): table \(table) differs (\(x.count) vs \(y.count) rows); "
                    + "only in first: \(Array(onlyA)); only in second: \(Array(onlyB))",
                file: file, line: line)
        }
    }

    /// Every record's raw bytes (skeleton joined with coreModel) by id, checked against `raw_hash`.
    static func rawRooms(_ path: String) throws -> [String: [UInt8]] {
        let db = try open(path)
        defer { try? db.close() }
        return try db.read { db in
            var out: [String: [UInt8]] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT record.id, record.raw_hash, raw_room.core_model_offset, raw_room.skeleton,
                           raw_core_model.bytes
                    FROM record JOIN raw_room ON raw_room.record_seq = record.seq
                    JOIN raw_core_model ON raw_core_model.record_seq = record.seq
                    """)
            {
                let parts = RawRoomParts(
                    skeleton: [UInt8](row["skeleton"] as Data), coreModel: [UInt8](row["bytes"] as Data),
                    coreModelOffset: row["core_model_offset"])
                out[row["id"]] = parts.joined()
            }
            return out
        }
    }

    /// Integer value of one SQL query.
    static func int(_ path: String, _ sql: String, _ arguments: StatementArguments = []) throws -> Int {
        let db = try open(path)
        defer { try? db.close() }
        return try db.read { try Int.fetchOne($0, sql: sql, arguments: arguments) ?? 0 }
    }

    /// Rows of one SQL query.
    static func rows(_ path: String, _ sql: String, _ arguments: StatementArguments = []) throws -> [Row] {
        let db = try open(path)
        defer { try? db.close() }
        return try db.read { try Row.fetchAll($0, sql: sql, arguments: arguments) }
    }

    /// Runs SQL statements in one write transaction.
    static func execute(_ path: String, _ sql: String, _ arguments: StatementArguments = []) throws {
        let db = try open(path)
        defer { try? db.close() }
        try db.write { try $0.execute(sql: sql, arguments: arguments) }
    }

    /// The latest run row (or the one with `id`).
    static func run(_ path: String, id: Int64? = nil) throws -> Row? {
        let db = try open(path)
        defer { try? db.close() }
        return try db.read { db in
            if let id { return try Row.fetchOne(db, sql: "SELECT * FROM run WHERE id = ?", arguments: [id]) }
            return try Row.fetchOne(db, sql: "SELECT * FROM run ORDER BY id DESC LIMIT 1")
        }
    }

    /// The bytes of a file and its -wal / -shm companions (nil when absent).
    static func fileBytes(_ path: String) -> [String: Data?] {
        var out: [String: Data?] = [:]
        for suffix in ["", "-wal", "-shm"] {
            out[suffix] = FileManager.default.contents(atPath: path + suffix)
        }
        return out
    }
}
