import Foundation
import GRDB
import XCTest

@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// SQLite's health signals for a writing run: with a reader holding its snapshot the WAL grows;
/// once it leaves, the checkpoint copies everything back and the WAL, measured by what it holds
/// rather than by the file's largest size, falls back, so a run is not slowed down for the rest
/// of its life.
final class SQLiteHealthTests: XCTestCase {
    private var dir: TemporaryDirectory!

    /// A read's result, written on its thread before it signals and read after the wait.
    private final class Outcome: @unchecked Sendable {
        var result: Result<HealthReading, RederiveError>?
    }

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
        let checkpointer = try XCTUnwrap(store.checkpointer)
        // A read reports the pass the read before asked for: a pass run here stands for it.
        func settled() throws -> HealthReading {
            _ = try checkpointer.pass()
            return try store.readHealth()
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
        let held = try settled()
        XCTAssertNotNil(held[.checkpointBlockedFrames], "measured for a writing run: \(held)")
        XCTAssertGreaterThan(held[.walFileBytes] ?? 0, 2_000_000)

        try reader.inDatabase { db in try db.rollback() }
        try reader.close()
        let left = try settled()
        XCTAssertEqual(left[.checkpointBlockedFrames], 0, "copied back once the reader left")
        // A run waiting on red writes nothing: the signal must clear without a write.
        XCTAssertEqual(left[.walFileBytes], 0, "nothing the database lacks once the reader left")
        try write(1)  // the next write starts the WAL over
        let after = try settled()
        XCTAssertLessThan(after[.walFileBytes] ?? .infinity, 100_000, "the WAL by what it holds, not its largest size")
        var info = stat()
        XCTAssertEqual(stat(path + "-wal", &info), 0)
        XCTAssertGreaterThan(Double(info.st_size), 2_000_000, "the file itself keeps its size")
    }

    /// The read does not wait for a checkpoint pass (whose syncs every thread of the run waited
    /// for): with the checkpointer's connection held, so no pass can run, it returns what the
    /// last finished pass found; the pass it asked for runs once the connection is let go, and
    /// the read after it shows the frames a reader's snapshot keeps from being copied.
    func testTheHealthReadDoesNotWaitForACheckpointPass() throws {
        let path = dir.file("s.sqlite")
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        let checkpointer = try XCTUnwrap(store.checkpointer)
        XCTAssertEqual(try store.readHealth()[.checkpointBlockedFrames], 0, "the first read waits for its pass")
        var config = Configuration()
        config.allowsUnsafeTransactions = true
        let reader = try DatabaseQueue(path: path, configuration: config)
        try reader.inDatabase { db in
            try db.beginTransaction(.deferred)
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
        }
        defer { try? reader.inDatabase { db in try db.rollback() } }
        try store.pool.write { db in
            try db.execute(sql: "CREATE TABLE filler (t TEXT)")
            for _ in 0..<200 {
                try db.execute(sql: "INSERT INTO filler VALUES (?)", arguments: [String(repeating: "x", count: 4000)])
            }
        }

        let passes = checkpointer.counts.passes
        let release = checkpointer.hold()
        let reading = Outcome()
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            reading.result = Result { () throws(RederiveError) -> HealthReading in try store.readHealth() }
            returned.signal()
        }
        let waited = returned.wait(timeout: .now() + 20)
        release()
        if waited == .timedOut { returned.wait() }
        XCTAssertEqual(waited, .success, "the read returned while no pass could run")
        let held = try XCTUnwrap(reading.result).get()
        XCTAssertEqual(held[.checkpointBlockedFrames], 0, "what the last finished pass found")

        let deadline = Date().addingTimeInterval(20)
        while checkpointer.counts.passes == passes, Date() < deadline { usleep(10_000) }
        XCTAssertGreaterThan(checkpointer.counts.passes, passes, "the pass the read asked for ran")
        let blocked = try store.readHealth()
        XCTAssertGreaterThan(blocked[.checkpointBlockedFrames] ?? 0, 0, "\(blocked)")
        XCTAssertGreaterThan(blocked[.walFileBytes] ?? 0, 400_000)
    }

    /// Another connection holds the write lock for 1.5 s: the store's next write waits for it in
    /// the busy handler, and the next read shows that wait (yellow by default, red at 5 s); the
    /// read after shows only what was waited since.
    func testTimeWaitedForTheWriteLockIsASignal() throws {
        let path = dir.file("s.sqlite")
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        XCTAssertEqual(try store.readHealth()[.lockWaitSeconds], 0)

        let other = try DatabaseQueue(path: path)
        let holding = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? other.inDatabase { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                holding.signal()
                Thread.sleep(forTimeInterval: 1.5)
                try db.execute(sql: "COMMIT")
            }
            released.signal()
        }
        holding.wait()
        try store.pool.write { db in try db.execute(sql: "CREATE TABLE filler (t TEXT)") }
        released.wait()
        let waited = try XCTUnwrap(try store.readHealth()[.lockWaitSeconds])
        XCTAssertGreaterThan(waited, 1.0, "the write waited for the other connection's lock")
        XCTAssertLessThan(waited, 5)
        XCTAssertEqual(HealthLimits.defaults[.lockWaitSeconds].grade(waited), .yellow)
        XCTAssertEqual(try store.readHealth()[.lockWaitSeconds] ?? -1, 0, accuracy: 0.01, "since the last read")
        let report = HealthReport(
            store: path, reading: HealthReading([.lockWaitSeconds: .measured(waited)]), policy: HealthPolicy())
        let reason = try XCTUnwrap(report.decision.reasons.first)
        XCTAssertTrue(reason.hasPrefix("time waited for locks 1."), reason)

        let readOnly = try SQLiteStore(path: path, readOnly: true)
        defer { readOnly.close() }
        XCTAssertEqual(
            try readOnly.readHealth().values[.lockWaitSeconds], .unmeasurable("the store is open read-only"))
    }

    /// The health read's checkpoint runs on a connection of its own: the run's commits (the pool's
    /// writer) do not queue behind it, once a second, and it does not wait for a commit under way.
    func testTheHealthReadDoesNotWaitForTheWriter() throws {
        let store = try SQLiteStore(path: dir.file("s.sqlite"))
        defer { store.close() }
        XCTAssertNotNil(try store.readHealth()[.walFileBytes])
        let writing = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? store.pool.write { db in
                try db.execute(sql: "CREATE TABLE filler (t TEXT)")
                writing.signal()
                Thread.sleep(forTimeInterval: 2)
            }
            done.signal()
        }
        writing.wait()
        let started = Date()
        let reading = try store.readHealth()
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "read while the writer is busy")
        XCTAssertNotNil(reading[.checkpointBlockedFrames], "\(reading)")
        done.wait()
    }
}
