import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveEngineTestSupport
@testable import RederiveSQLite
@testable import RederiveTestSupport

/// `FileWriteback`: every committed import batch asks the kernel to start writing the store's
/// WAL, and every checkpoint pass that copied frames the store file.
final class FileWritebackTests: XCTestCase {
    func testEveryImportBatchHintsTheStoresWAL() throws {
        #if !os(Linux)
        throw XCTSkip("sync_file_range is Linux's")
        #endif
        let dir = try TemporaryDirectory()
        let store = try SQLiteStore(path: dir.file("s.sqlite"))
        defer { store.close() }
        let export = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports/rooms-v2.jsonl").path
        let records = try StoreFixtures.importFiles([export], into: store, batchSize: 3).statistics.recordsRead
        XCTAssertGreaterThan(records, 3)
        // One hint a committed batch: at least one per 3 records read (the file's end is one more).
        XCTAssertGreaterThanOrEqual(store.walWriteback.hints, (records + 2) / 3)
        XCTAssertLessThanOrEqual(store.walWriteback.hints, (records + 2) / 3 + 1)
    }

    /// A pass that copies frames into the store file starts its writeback, and the store's close
    /// closes the descriptor (no descriptor is left open).
    func testACheckpointPassThatCopiesHintsTheStoreFile() throws {
        #if !os(Linux)
        throw XCTSkip("sync_file_range is Linux's")
        #endif
        let dir = try TemporaryDirectory()
        let descriptors = try Self.openDescriptors()
        let store = try SQLiteStore(path: dir.file("s.sqlite"))
        let checkpointer = try XCTUnwrap(store.checkpointer)
        _ = try checkpointer.pass()  // the schema's pages
        let before = store.storeWriteback.hints
        XCTAssertGreaterThan(before, 0)
        try store.pool.write { db in
            try db.execute(sql: "CREATE TABLE filler (b BLOB)")
            try db.execute(sql: "INSERT INTO filler VALUES (zeroblob(200000))")
        }
        let pass = try checkpointer.pass()
        XCTAssertGreaterThan(pass.copied, 0)
        XCTAssertGreaterThan(store.storeWriteback.hints, before)
        store.close()
        XCTAssertEqual(try Self.openDescriptors(), descriptors, "the close closed the store file's descriptor")
    }

    func testNoWALNoHint() throws {
        let dir = try TemporaryDirectory()
        let writeback = FileWriteback.wal(ofStore: dir.file("absent.sqlite"))
        writeback.hint()
        XCTAssertEqual(writeback.hints, 0)
    }

    /// The process's open descriptors.
    private static func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }
}
