import Foundation
import GRDB
import XCTest

@testable import RederiveCore
@testable import RederiveSQLite

/// SQLite's health signals for a writing run: with a reader holding its snapshot the WAL grows;
/// once it leaves, the checkpoint copies everything back and the WAL, measured by what it holds
/// rather than by the file's largest size, falls back, so a run is not slowed down for the rest
/// of its life.
final class SQLiteHealthTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    func testAReaderHoldingItsSnapshotShowsAndClearsWhenItLeaves() throws {
        let path = dir.file("s.sqlite")
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        try StoreFixtures.importFiles(
            [RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports/rooms-v2.jsonl").path], into: store)
        func write(_ rows: Int) throws {
            try store.pool.write { db in
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS filler (t TEXT)")
                for _ in 0..<rows {
                    try db.execute(
                        sql: "INSERT INTO filler VALUES (?)", arguments: [String(repeating: "x", count: 4000)])
                }
            }
        }
        let calm = try store.readHealth()
        XCTAssertEqual(calm[.checkpointBlockedFrames], 0)

        var config = Configuration()
        config.allowsUnsafeTransactions = true  // the reader's transaction stays open between accesses
        let reader = try DatabaseQueue(path: path, configuration: config)
        try reader.inDatabase { db in
            try db.beginTransaction(.deferred)
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM record")  // the snapshot is taken here
        }
        try write(500)
        let held = try store.readHealth()
        XCTAssertNotNil(held[.checkpointBlockedFrames], "measured for a writing run: \(held)")
        XCTAssertGreaterThan(held[.walFileBytes] ?? 0, 2_000_000)

        try reader.inDatabase { db in try db.rollback() }
        try reader.close()
        XCTAssertEqual(try store.readHealth()[.checkpointBlockedFrames], 0, "copied back once the reader left")
        try write(1)  // the next write starts the WAL over
        let after = try store.readHealth()
        XCTAssertLessThan(after[.walFileBytes] ?? .infinity, 100_000, "the WAL by what it holds, not its largest size")
        var info = stat()
        XCTAssertEqual(stat(path + "-wal", &info), 0)
        XCTAssertGreaterThan(Double(info.st_size), 2_000_000, "the file itself keeps its size")
    }
}
