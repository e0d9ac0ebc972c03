import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// The store in hostile environments (issue 8, points 6, 7, 9 and 14): a reader holding the
/// WAL, read-only media, a creation that failed, a directory given as the store.
final class StoreEnvironmentTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func fixtureStore(_ name: String = "s.sqlite") throws -> String {
        let path = dir.file(name)
        let store = try SQLiteStore(path: path)
        try StoreFixtures.importFiles(
            [RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports/rooms-v2.jsonl").path],
            into: store)
        store.close()
        return path
    }

    // MARK: Point 6: close does not wait on readers

    func testCloseDoesNotWaitForAReaderHoldingTheWAL() throws {
        let path = dir.file("s.sqlite")
        let store = try SQLiteStore(path: path)
        _ = try store.beginRun(
            RunStartRequest(
                command: "derive", pipeline: nil, arguments: "derive", resumeKey: nil, deriver: SummaryDeriver()))
        // Another connection holds a read transaction on the current WAL, as an open
        // `status` or a reporting tool would.
        var config = Configuration()
        config.readonly = true
        config.allowsUnsafeTransactions = true
        let reader = try DatabaseQueue(path: path, configuration: config)
        try reader.inDatabase { db in
            try db.beginTransaction(.deferred)
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM run")
        }
        let closed = expectation(description: "close returned")
        Thread.detachNewThread {
            store.close()
            closed.fulfill()
        }
        // Before the fix close() waited out the 30 s busy timeout; a hang is a failure here.
        wait(for: [closed], timeout: 15)
        try reader.inDatabase { db in try db.rollback() }
        try reader.close()
        // Nothing was lost: the next open sees the run.
        let reopened = try SQLiteStore(path: path)
        XCTAssertEqual(try reopened.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM run") }, 1)
        reopened.close()
    }

    // MARK: Point 7: read-only media

    func testReadOnlyStoreFallsBackToImmutableWhenCompanionFilesCannotBeMade() throws {
        let path = try fixtureStore()
        // Forced: as root, permissions never stop SQLite creating -shm (see the CLI test below
        // for real read-only media).
        let store = try SQLiteStore(path: path, readOnly: true, forceImmutable: true)
        let status = try store.status()
        XCTAssertEqual(status.totalRecords, 6)
        store.close()
        for suffix in ["-wal", "-shm"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: path + suffix), "immutable creates no \(suffix)")
        }
    }

    func testImmutableFallbackRefusesAStoreWhoseWALHoldsChanges() throws {
        let path = try fixtureStore()
        // A writer that has not checkpointed (still open): its commits are in the -wal only.
        let writer = try SQLiteStore(path: path)
        _ = try writer.beginRun(
            RunStartRequest(
                command: "derive", pipeline: nil, arguments: "derive", resumeKey: nil, deriver: SummaryDeriver()))
        defer { writer.close() }
        XCTAssertThrowsError(try SQLiteStore(path: path, readOnly: true, forceImmutable: true)) { error in
            XCTAssertTrue("\(error)".contains("-wal holds"), "\(error)")
        }
    }

    // MARK: Point 9: a failed creation

    func testZeroByteFileIsCreatedAsANewStoreWithItsPageSize() throws {
        let path = dir.file("s.sqlite")
        FileManager.default.createFile(atPath: path, contents: Data())
        let store = try SQLiteStore(path: path)
        XCTAssertEqual(try store.pool.read { try Int.fetchOne($0, sql: "PRAGMA page_size") }, SQLiteStore.pageSize)
        XCTAssertEqual(try store.pool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }, "wal")
        store.close()
        XCTAssertThrowsError(try SQLiteStore(path: dir.file("empty.sqlite"), readOnly: true))
    }

    func testFailedCreationLeavesNoFile() throws {
        // A store inside a path whose parent is a file cannot be created at all.
        let blocker = dir.file("file")
        FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8))
        XCTAssertThrowsError(try SQLiteStore(path: blocker + "/s.sqlite"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["file"])
    }

    // MARK: Point 14: a directory as the store

    func testDirectoryAsTheStoreSaysSo() throws {
        for readOnly in [false, true] {
            XCTAssertThrowsError(try SQLiteStore(path: dir.path, readOnly: readOnly)) { error in
                guard case .usage(let message) = error as? RederiveError else { return XCTFail("\(error)") }
                XCTAssertTrue(message.contains("is a directory"), message)
            }
        }
    }
}
