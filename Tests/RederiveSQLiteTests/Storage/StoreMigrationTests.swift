import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Opening stores: schema history, refusing newer or foreign files untouched, reopening.
final class StoreMigrationTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    /// A store with a few records, closed cleanly (the main file holds everything).
    private func makeStore(_ name: String = "store.sqlite") throws -> String {
        let path = dir.file(name)
        let store = try SQLiteStore(path: path)
        let file = dir.file("a.jsonl")
        try ExportFixtures.write(
            lines: [
                String(
                    decoding: ExportFixtures.v3Line(
                        id: "11111111-1111-4111-8111-111111111111", name: "K",
                        roomText: try ExportFixtures.compactRoom("Kitchen")), as: UTF8.self)
            ],
            to: file)
        try StoreFixtures.importFiles([file], into: store)
        store.close()
        return path
    }

    /// Runs `body` on a plain connection and leaves the file with no WAL content.
    private func tamper(_ path: String, _ body: (Database) throws -> Void) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.inTransaction {
                try body(db); return .commit
            }
            try db.checkpoint(.truncate)
        }
        try queue.close()
    }

    private func assertRefused(
        _ path: String, mentioning words: [String], file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try SQLiteStore(path: path), file: file, line: line) { error in
            guard let error = error as? RederiveError, case .io(let message) = error else {
                return XCTFail("expected RederiveError.io, got \(error)", file: file, line: line)
            }
            XCTAssertEqual(error.exitStatus, .failure, file: file, line: line)
            for word in words {
                XCTAssertTrue(message.contains(word), "\(message) should mention \(word)", file: file, line: line)
            }
        }
    }

    private func assertUntouched(
        _ path: String, _ before: [String: Data?], suffixes: [String] = ["", "-wal", "-shm"],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let after = StoreInspection.fileBytes(path)
        for suffix in suffixes {
            XCTAssertTrue(
                before[suffix]! == after[suffix]!,
                "\(path)\(suffix) changed "
                    + "(before \(before[suffix]!?.count ?? -1) bytes, after \(after[suffix]!?.count ?? -1))",
                file: file, line: line)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".backup-v1-initial"), file: file, line: line)
    }

    func testNewerStoreIsRefusedAndLeftByteIdentical() throws {
        let path = try makeStore()
        try tamper(path) { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')")
        }
        let before = StoreInspection.fileBytes(path)
        XCTAssertNotNil(before[""]!)
        XCTAssertNil(before["-wal"]!, "tampering left no WAL behind")
        assertRefused(path, mentioning: ["newer", "v99-future"])
        assertUntouched(path, before)
        // Refused again the same way (the first attempt changed nothing).
        assertRefused(path, mentioning: ["newer"])
        assertUntouched(path, before)
    }

    func testNewerStoreWithUncheckpointedWALIsRefusedAndLeftByteIdentical() throws {
        // The state a crash leaves: the unknown migration only in the -wal file.
        let path = try makeStore()
        let copy = dir.file("crashed.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')")
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
            }
        }
        try queue.close()
        let before = StoreInspection.fileBytes(copy)
        XCTAssertNotNil(before["-wal"]!, "the copy has a WAL")
        assertRefused(copy, mentioning: ["newer", "v99-future"])
        // The database and its -wal stay byte-identical. The -shm (SQLite's shared-memory
        // wal-index, rebuilt from the -wal whenever needed) may get reader bookkeeping: reading
        // a non-empty WAL without it is not possible read-only (see SchemaHistoryReader).
        assertUntouched(copy, before, suffixes: ["", "-wal"])
    }

    func testForeignSQLiteFileIsRefusedUntouched() throws {
        let path = dir.file("other.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write {
            try $0.execute(
                sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('hi')")
        }
        try queue.close()
        let before = StoreInspection.fileBytes(path)
        assertRefused(path, mentioning: ["not a rederive store"])
        assertUntouched(path, before)
    }

    func testNonSQLiteFileIsRefusedUntouched() throws {
        let path = dir.file("notes.txt")
        try Data("this is not a database, just some text that is long enough to look like a file header\n".utf8)
            .write(to: URL(fileURLWithPath: path))
        let before = StoreInspection.fileBytes(path)
        assertRefused(path, mentioning: [path])
        assertUntouched(path, before)
    }

    func testOpeningTwiceWorks() throws {
        let path = try makeStore()
        let dumpBefore = try StoreInspection.dump(path, excluding: .strict)
        // Sequentially ...
        let first = try SQLiteStore(path: path)
        XCTAssertNil(first.backupPath, "an up-to-date store needs no backup")
        first.close()
        let second = try SQLiteStore(path: path)
        // ... and while another one is open.
        let third = try SQLiteStore(path: path)
        XCTAssertEqual(
            try third.rawRoom(id: "11111111-1111-4111-8111-111111111111"), try ExportFixtures.compactRoom("Kitchen"))
        third.close()
        second.close()
        StoreInspection.assertEqual(dumpBefore, try StoreInspection.dump(path, excluding: .strict), "reopened store")
        XCTAssertEqual(
            try StoreInspection.rows(path, "SELECT identifier FROM grdb_migrations").map { $0["identifier"] as String },
            [
                "v1-initial", "v2-summary-history", "v3-failure-ack", "v4-faulted-files", "v5-run-batch-and-control",
                "v6-batch-health",
            ]
                + SummaryColumn.additions.map(\.migrationName))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("backup") }, [])
    }

    func testNewStoreInMissingDirectoryAndEmptyFile() throws {
        let nested = dir.file("a/b/store.sqlite")
        let store = try SQLiteStore(path: nested)
        store.close()
        XCTAssertEqual(
            try StoreInspection.int(nested, "SELECT COUNT(*) FROM grdb_migrations"), 6 + SummaryColumn.additions.count)
        // An empty file (e.g. touched by a script) is a new store.
        let empty = dir.file("empty.sqlite")
        FileManager.default.createFile(atPath: empty, contents: Data())
        let emptyStore = try SQLiteStore(path: empty)
        XCTAssertNil(emptyStore.backupPath)
        emptyStore.close()
        XCTAssertEqual(try StoreInspection.int(empty, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'record'"), 1)
    }

    func testSchemaHistoryWithNoAppliedMigrations() throws {
        // Backup-before-migration only triggers when an existing store has some but not all
        // migrations applied; with a single shipped migration ("v1-initial") no real store can
        // be in that state, so the backup path is not reachable yet. What can happen today is
        // a file holding GRDB's (empty) schema history and nothing else, e.g. a store whose
        // first migration was interrupted: it must be migrated from scratch, with no backup
        // (there is nothing to keep) and no error.
        let path = dir.file("store.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)") }
        try queue.close()
        let store = try SQLiteStore(path: path)
        XCTAssertNil(store.backupPath)
        store.close()
        XCTAssertEqual(
            try StoreInspection.rows(path, "SELECT identifier FROM grdb_migrations").map { $0["identifier"] as String },
            [
                "v1-initial", "v2-summary-history", "v3-failure-ack", "v4-faulted-files", "v5-run-batch-and-control",
                "v6-batch-health",
            ]
                + SummaryColumn.additions.map(\.migrationName))
        for table in ["record", "raw_room", "raw_core_model", "summary", "run", "failure", "imported_file"] {
            XCTAssertEqual(
                try StoreInspection.int(
                    path, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [table]), 1, table)
        }
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("backup") }, [])
        // And the migrated store works.
        let reopened = try SQLiteStore(path: path)
        try StoreFixtures.importFiles(
            [RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports/rooms-v2.jsonl").path], into: reopened)
        reopened.close()
        XCTAssertEqual(try StoreInspection.int(path, "SELECT COUNT(*) FROM record"), 6)
    }

    /// v1's `summary` and v2's `summary_history` take their columns from one list in the
    /// source; shipped migrations never change, so the tables are created as they shipped, to
    /// the byte (SQLite keeps each table's text; a later added column goes after these).
    func testSummaryTablesAreCreatedAsShipped() throws {
        let path = dir.file("store.sqlite")
        try SQLiteStore(path: path).close()
        let columns = """
                summary_version INTEGER NOT NULL,
                fingerprint TEXT NOT NULL,
                derived_at TEXT NOT NULL,
                run_id INTEGER,
                floor_area_sqm REAL NOT NULL,
                ceiling_height_m REAL NOT NULL,
                wall_count INTEGER NOT NULL,
                object_count INTEGER NOT NULL,
                door_count INTEGER NOT NULL,
                window_count INTEGER NOT NULL,
                opening_count INTEGER NOT NULL,
                volume_m3 REAL NOT NULL,
                floor_area_method TEXT NOT NULL,
                summary_json TEXT NOT NULL
            """
        let shipped = [
            "summary": "CREATE TABLE summary (\n"
                + "    record_seq INTEGER PRIMARY KEY REFERENCES record(seq) ON DELETE CASCADE,\n" + columns,
            "summary_history": "CREATE TABLE summary_history (\n    replaced_by_run INTEGER NOT NULL,\n"
                + "    record_seq INTEGER NOT NULL REFERENCES record(seq) ON DELETE CASCADE,\n"
                + "    replaced_at TEXT NOT NULL,\n" + columns + ",\n    PRIMARY KEY (replaced_by_run, record_seq)",
        ]
        for (table, text) in shipped {
            let sql = try XCTUnwrap(
                try StoreInspection.rows(path, "SELECT sql FROM sqlite_master WHERE name = ?", [table]).first?[0]
                    as String?)
            XCTAssertTrue(sql.hasPrefix(text), "\(table):\n\(sql)")
        }
    }

    func testPathWithURICharactersOpensAndIsRefusedProperly() throws {
        // The pre-open check reads through an SQLite URI: odd characters must be escaped.
        let path = dir.file("we?ird %20 #dir/store.sqlite")
        let store = try SQLiteStore(path: path)
        store.close()
        let reopened = try SQLiteStore(path: path)
        reopened.close()
        try tamper(path) { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')") }
        let before = StoreInspection.fileBytes(path)
        assertRefused(path, mentioning: ["newer"])
        assertUntouched(path, before)
    }

    func testStoreIsInWALMode() throws {
        let path = try makeStore()
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let mode = try StoreInspection.rows(path, "PRAGMA journal_mode").first?[0] as String?
        XCTAssertEqual(mode?.lowercased(), "wal")
    }
}
