import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveEngineTestSupport
@testable import RederiveSQLite
@testable import RederiveTestSupport

/// `WALWriteback`: every committed import batch asks the kernel to start writing the store's WAL.
final class WALWritebackTests: XCTestCase {
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

    func testNoWALNoHint() throws {
        let dir = try TemporaryDirectory()
        let writeback = WALWriteback(storePath: dir.file("absent.sqlite"))
        writeback.hint()
        XCTAssertEqual(writeback.hints, 0)
    }
}
