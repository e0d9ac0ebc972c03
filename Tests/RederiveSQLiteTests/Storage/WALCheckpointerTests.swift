import Foundation
import GRDB
import RederiveCorpus
import XCTest

@testable import RederiveCore
@testable import RederiveEngineTestSupport
@testable import RederiveSQLite
@testable import RederiveTestSupport

/// `WALCheckpointer`: a writing store's commits never checkpoint (SQLite's auto-checkpoint ran in
/// the commit that crossed 1,000 WAL pages); a thread of its own copies the WAL back, the writer
/// waits for it only at the bound, and what the store holds does not depend on when it ran.
final class WALCheckpointerTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    /// A store at `s.sqlite` checkpointed at `limits`, closed when the test ends, and its checkpointer.
    private func openStore(
        _ limits: WALCheckpointer.Limits = WALCheckpointer.Limits()
    ) throws -> (store: SQLiteStore, checkpointer: WALCheckpointer, path: String) {
        let path = dir.file("s.sqlite")
        let store = try SQLiteStore(path: path, readOnly: false, forceImmutable: false, checkpoints: limits)
        addTeardownBlock { store.close() }
        return (store, try XCTUnwrap(store.checkpointer), path)
    }

    /// A value written on one thread and read on another.
    private final class Shared<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: T
        init(_ value: T) { stored = value }
        var value: T {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    /// One commit of `rows` rows of 60,000 bytes (about a 64 KB page each).
    private static func commit(_ store: SQLiteStore, rows: Int) throws {
        try store.pool.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS filler (b BLOB)")
            for _ in 0..<rows { try db.execute(sql: "INSERT INTO filler VALUES (zeroblob(60000))") }
        }
    }

    /// The `-wal` file's length in frames (it keeps its largest size until the store closes).
    private func walFrames(_ path: String, pageSize: Int) -> Int {
        var info = stat()
        guard stat(path + "-wal", &info) == 0, info.st_size > 32 else { return 0 }
        return (Int(info.st_size) - 32) / (pageSize + 24)
    }

    func testTheWritersCommitsDoNotCheckpoint() throws {
        let (store, checkpointer, path) = try openStore()
        XCTAssertEqual(checkpointer.limits.start, 1_000)
        let release = checkpointer.hold()
        // 1,500 pages in commits of 50: SQLite's auto-checkpoint would have copied the WAL back in
        // the commit that crossed 1,000 and started it over, so it would never reach 1,100 frames.
        for _ in 0..<30 { try Self.commit(store, rows: 50) }
        XCTAssertGreaterThan(walFrames(path, pageSize: checkpointer.pageSize), 1_500)
        XCTAssertEqual(checkpointer.counts.passes, 0, "no pass while the checkpointer is held")
        XCTAssertEqual(checkpointer.counts.waits, 0, "below the bound, the writer never waits")

        release()
        let pass = try checkpointer.pass()
        XCTAssertGreaterThan(pass.frames, 1_500)
        XCTAssertEqual(pass.copied, pass.frames, "the checkpointer copied all of it back")
        try Self.commit(store, rows: 1)
        XCTAssertLessThan(try checkpointer.pass().frames, 10, "the next commit started the WAL over")
        XCTAssertEqual(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM filler") }, 1_501)
    }

    /// A writer that outruns the checkpointer waits at the bound for a pass begun after its commit,
    /// and the WAL starts over at its next commit: the `-wal` file stays under the bound plus one
    /// commit.
    func testAWriterWaitsAtTheBoundAndTheWALStaysBounded() throws {
        let (store, checkpointer, path) = try openStore(WALCheckpointer.Limits(start: 8, step: 4, bound: 32))
        let release = checkpointer.hold()
        let before = checkpointer.counts.waits  // the new store's schema is past the bound too
        let commits = Shared(0)
        let writerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for _ in 0..<40 {
                try? Self.commit(store, rows: 4)
                commits.value += 1
            }
            writerDone.signal()
        }
        let deadline = Date().addingTimeInterval(30)
        while checkpointer.counts.waits == before, Date() < deadline { usleep(10_000) }
        XCTAssertEqual(checkpointer.counts.waits, before + 1, "the commit that reached the bound waits")
        let stalled = commits.value
        usleep(300_000)
        XCTAssertEqual(commits.value, stalled, "no commit while it waits")
        XCTAssertLessThan(stalled, 40)
        XCTAssertLessThanOrEqual(walFrames(path, pageSize: checkpointer.pageSize), 32 + 8)

        release()
        writerDone.wait()
        XCTAssertEqual(commits.value, 40)
        XCTAssertLessThanOrEqual(walFrames(path, pageSize: checkpointer.pageSize), 32 + 8, "bound plus one commit")
        XCTAssertGreaterThan(checkpointer.counts.passes, 1)
        XCTAssertEqual(try store.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM filler") }, 160)
    }

    /// A long import with the checkpointer held until the writer reaches the bound: the `-wal`
    /// file never grows past the bound plus one batch, and every record is stored.
    func testTheWALStaysBoundedOnALongImport() throws {
        let export = dir.file("bulk.jsonl")
        var options = CorpusGenerator.Options(records: 300, seed: 5)
        options.coreModelBytes = 100_000
        options.collectLines = false
        try ExportFixtures.writeGenerated(options, to: export)
        let (store, checkpointer, path) = try openStore(WALCheckpointer.Limits(start: 16, step: 8, bound: 64))
        let release = checkpointer.hold()
        let before = checkpointer.counts.waits
        let imported = DispatchSemaphore(value: 0)
        let report = Shared<Result<RunReport, any Error>?>(nil)
        Thread.detachNewThread {
            report.value = Result { try StoreFixtures.importFiles([export], into: store, batchSize: 7) }
            imported.signal()
        }
        let deadline = Date().addingTimeInterval(60)
        while checkpointer.counts.waits == before, Date() < deadline { usleep(10_000) }
        XCTAssertGreaterThan(checkpointer.counts.waits, before, "the import reached the bound while held")
        release()
        imported.wait()
        XCTAssertEqual(try XCTUnwrap(report.value).get().statistics.recordsDone, 300)
        // A batch of 7 records of ~100 KB is ~12 pages, and the run's own rows a few more.
        let frames = walFrames(path, pageSize: checkpointer.pageSize)
        XCTAssertGreaterThan(frames, 40)
        XCTAssertLessThanOrEqual(frames, 64 + 24, "the bound plus one batch")
    }

    /// What an import and a derive store does not depend on when the WAL was copied back: a pass
    /// after every commit, the writer waiting for each (as a checkpoint inside each commit), and
    /// none until the store closes give the same tables, and both stores pass SQLite's check.
    func testTheStoreIsTheSameWhenEverTheCheckpointsRun() throws {
        let files = try ExportFiles.resolve([StoreFixtures.fixturesDirectory])
        var dumps: [[String: [String]]] = []
        let everyCommit = WALCheckpointer.Limits(start: 1, step: 1, bound: 1)
        let never = WALCheckpointer.Limits(start: .max, step: .max, bound: .max)
        for (name, limits) in [("every", everyCommit), ("never", never)] {
            let path = dir.file("\(name).sqlite")
            let store = try SQLiteStore(path: path, readOnly: false, forceImmutable: false, checkpoints: limits)
            try StoreFixtures.importFiles(files, into: store, batchSize: 4)
            try StoreFixtures.execute(store, "DELETE FROM summary WHERE record_seq % 3 = 0")
            let derived = try StoreFixtures.derive(store, DeriveSelection(all: true), batchSize: 4)
            XCTAssertGreaterThan(derived.statistics.recordsDone, 0)
            let counts = try XCTUnwrap(store.checkpointer).counts
            if name == "every" {
                XCTAssertGreaterThan(counts.waits, 10, "each commit waited for its pass")
            } else {
                XCTAssertEqual(counts.passes, 0)
            }
            store.close()
            let check = try StoreInspection.open(path)
            XCTAssertEqual(try check.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }, "ok")
            try check.close()
            dumps.append(try StoreInspection.dump(path, excluding: .crash))
        }
        XCTAssertEqual(dumps[0], dumps[1])
        XCTAssertEqual(dumps[0]["record"]?.count, 45)
    }
}
