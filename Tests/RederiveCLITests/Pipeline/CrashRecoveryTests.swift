import Foundation
import GRDB
import XCTest
@testable import RederiveCore
import RederiveCorpus
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Process-level: the `rederive` executable killed (`kill -9`) or signalled (SIGTERM/SIGINT)
/// in the middle of `import` and `derive`, then run again, must end with exactly the store an
/// uninterrupted run makes. Uses a generated corpus of 2,000 records (3 % corrupt) in two
/// files (plain and multi-frame zstd).
final class CrashRecoveryTests: XCTestCase {
    /// Shared by every test of the class: the corpus and the uninterrupted reference store.
    struct Corpus {
        let dir: TemporaryDirectory
        let files: [String]
        let reference: String
        let referenceDump: [String: [String]]
        let referenceExit: Int32
        let records: Int
    }

    nonisolated(unsafe) private static var shared: Result<Corpus, Error>?
    private static let lock = NSLock()

    var dir: TemporaryDirectory!
    var corpus: Corpus!

    override func setUpWithError() throws {
        _ = try CommandLineTool.executable()
        corpus = try Self.lock.withLock {
            if let shared = Self.shared { return try shared.get() }
            let result = Result { try Self.makeCorpus() }
            Self.shared = result
            return try result.get()
        }
        dir = try TemporaryDirectory()
    }

    override func tearDown() { dir = nil }

    // The corpus is shared by this class's tests: drop it (and its temporary folder) after the last.
    override class func tearDown() {
        lock.withLock { shared = nil }
        super.tearDown()
    }

    private static func makeCorpus() throws -> Corpus {
        let dir = try TemporaryDirectory()
        let rooms = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/rooms").path
        var a = CorpusGenerator.Options(records: 1200, seed: 4242)
        a.corruptFraction = 0.03
        a.coreModelBytes = 2000
        a.collectLines = false
        var b = CorpusGenerator.Options(records: 800, seed: 4343)
        b.corruptFraction = 0.03
        b.coreModelBytes = 2000
        b.framesEvery = 100
        b.collectLines = false
        let fileA = dir.file("export/a.jsonl"), fileB = dir.file("export/b.jsonl.zst")
        try FileManager.default.createDirectory(atPath: dir.file("export"), withIntermediateDirectories: true)
        _ = try CorpusGenerator(roomsDirectory: rooms, options: a).write(to: fileA)
        _ = try CorpusGenerator(roomsDirectory: rooms, options: b).write(to: fileB)
        let reference = dir.file("reference.sqlite")
        let status = try CommandLineTool.run(
            importArguments([fileA, fileB], db: reference), stderrPath: dir.file("reference.err"))
        let records = try StoreInspection.int(reference, "SELECT COUNT(*) FROM record")
        XCTAssertGreaterThan(records, 1800)
        XCTAssertGreaterThan(try StoreInspection.int(reference, "SELECT COUNT(*) FROM failure"), 20)
        // The reference itself is sound: every raw room joins back to its hash.
        for (id, bytes) in try StoreInspection.rawRooms(reference) {
            let hash = try XCTUnwrap(
                try StoreInspection.rows(reference, "SELECT raw_hash FROM record WHERE id = ?", [id]).first?["raw_hash"]
                    as String?)
            XCTAssertEqual(ContentHash.digest(bytes).hex, hash, id)
        }
        return Corpus(
            dir: dir, files: [fileA, fileB], reference: reference, referenceDump: try StoreInspection.dump(reference),
            referenceExit: status, records: records)
    }

    private static func importArguments(_ files: [String], db: String) -> [String] {
        ["import"] + files + ["--db", db, "--batch-size", "50", "--workers", "2", "--quiet"]
    }

    private func importArguments(_ db: String) -> [String] { Self.importArguments(corpus.files, db: db) }

    func deriveArguments(_ db: String, all: Bool) -> [String] {
        ["derive", "--db", db, "--batch-size", "20", "--workers", "2", "--quiet"] + (all ? ["--all"] : [])
    }

    /// Compares a store with the uninterrupted reference: same records, raw bytes, derived
    /// values and ledger; no duplicate, no lost record.
    private func assertMatchesReference(
        _ db: String, _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(
            try StoreInspection.int(db, "SELECT COUNT(*) FROM record"), corpus.records, what, file: file, line: line)
        XCTAssertEqual(
            try StoreInspection.int(db, "SELECT COUNT(DISTINCT id) FROM record"), corpus.records, what, file: file,
            line: line)
        StoreInspection.assertEqual(try StoreInspection.dump(db), corpus.referenceDump, what, file: file, line: line)
        let raw = try StoreInspection.rawRooms(db)
        let reference = try StoreInspection.rawRooms(corpus.reference)
        XCTAssertEqual(raw.count, reference.count, what, file: file, line: line)
        XCTAssertTrue(raw == reference, "\(what): raw bytes differ", file: file, line: line)
        XCTAssertEqual(
            try StoreInspection.int(db, "SELECT COUNT(*) FROM run WHERE status = 'running'"), 0, what, file: file,
            line: line)
    }

    // MARK: - kill -9

    /// Starts `arguments`, kills it with SIGKILL once its run has read `threshold` records
    /// (or after `delay` seconds when given), and returns the killed run's row if it had one.
    private func killMidRun(
        _ arguments: [String], db: String, command: String, threshold: Int?, delay: Double? = nil,
        after runID: Int64 = 0
    ) throws -> Row? {
        let child = try CommandLineTool.Child(arguments, stderrPath: dir.file("killed.err"))
        if let threshold {
            _ = CommandLineTool.waitForProgress(child, db: db, command: command, records: threshold, after: runID)
        } else if let delay {
            usleep(UInt32(delay * 1e6))
        }
        child.signal(SIGKILL)
        let (status, signaled) = child.wait()
        let run = CommandLineTool.latestRun(db).flatMap {
            ($0["id"] as Int64) > runID && ($0["command"] as String) == command ? $0 : nil
        }
        if signaled {
            XCTAssertEqual(status, SIGKILL)
            if let run { XCTAssertEqual(run["status"] as String, "running", "a killed run cannot record its end") }
        }
        // (If the process had already finished, the trial still checks the rerun.)
        return run
    }

    func testImportKilledAtSeveralPointsThenRerunMatchesUninterrupted() throws {
        var midRunKills = 0
        let trials: [(threshold: Int?, delay: Double?)] = [(nil, 0.05), (50, nil), (600, nil), (1400, nil)]
        for (index, trial) in trials.enumerated() {
            let db = dir.file("import-\(index).sqlite")
            let killed = try killMidRun(
                importArguments(db), db: db, command: "import", threshold: trial.threshold, delay: trial.delay)
            let status = try CommandLineTool.run(importArguments(db), stderrPath: dir.file("rerun.err"))
            XCTAssertEqual(status, corpus.referenceExit, "trial \(index)")
            let rerun = try XCTUnwrap(CommandLineTool.latestRun(db))
            XCTAssertEqual(rerun["status"] as String, "completed")
            if let killed, (killed["status"] as String) == "running" {
                midRunKills += 1
                XCTAssertEqual(rerun["resumed_from"] as Int64?, killed["id"] as Int64, "trial \(index)")
                XCTAssertEqual(
                    try XCTUnwrap(
                        CommandLineTool.latestRun(db).map { _ in
                            try StoreInspection.rows(db, "SELECT status FROM run WHERE id = ?", [killed["id"] as Int64])
                                .first?["status"] as String?
                        }), "crashed")
            }
            let killedAfter = trial.threshold.map { "\($0) records" } ?? "\(trial.delay ?? 0) s"
            try assertMatchesReference(db, "import trial \(index) (killed after \(killedAfter))")
        }
        XCTAssertGreaterThan(midRunKills, 0, "at least one kill landed mid-run")
    }

    func testImportKilledTwiceThenRerunMatchesUninterrupted() throws {
        let db = dir.file("import.sqlite")
        let first = try killMidRun(importArguments(db), db: db, command: "import", threshold: 300)
        let second = try killMidRun(
            importArguments(db), db: db, command: "import", threshold: 1000, after: first?["id"] ?? 0)
        if let first, let second {
            XCTAssertEqual(second["resumed_from"] as Int64?, first["id"] as Int64)
        }
        XCTAssertEqual(
            try CommandLineTool.run(importArguments(db), stderrPath: dir.file("rerun.err")), corpus.referenceExit)
        try assertMatchesReference(db, "import killed twice")
    }

    /// A copy of the reference store, prepared by `sql`.
    func referenceCopy(_ name: String, _ sql: String) throws -> String {
        let db = dir.file(name)
        try FileManager.default.copyItem(atPath: corpus.reference, toPath: db)
        try StoreInspection.execute(db, sql)
        return db
    }

    private func deriveKilledThenRerun(all: Bool, prepare sql: String, thresholds: [Int]) throws {
        var midRunKills = 0
        for (index, threshold) in thresholds.enumerated() {
            let db = try referenceCopy("derive-\(index).sqlite", sql)
            let before = try XCTUnwrap(CommandLineTool.latestRun(db)?["id"] as Int64?)
            let killed = try killMidRun(
                deriveArguments(db, all: all), db: db, command: "derive", threshold: threshold, after: before)
            let status = try CommandLineTool.run(deriveArguments(db, all: all), stderrPath: dir.file("rerun.err"))
            XCTAssertEqual(status, 0, "trial \(index)")
            let rerun = try XCTUnwrap(CommandLineTool.latestRun(db))
            XCTAssertEqual(rerun["status"] as String, "completed")
            if let killed, (killed["status"] as String) == "running" {
                midRunKills += 1
                let killedID: Int64 = killed["id"]
                let checkpoint =
                    try StoreInspection.rows(db, "SELECT checkpoint_seq FROM run WHERE id = ?", [killedID]).first?[
                        "checkpoint_seq"] as Int64? ?? 0
                XCTAssertEqual(rerun["resumed_from"] as Int64?, killedID, "the rerun continues the killed run")
                XCTAssertEqual(rerun["upper_bound_seq"] as Int64?, killed["upper_bound_seq"] as Int64?)
                if all {
                    // It went on from the checkpoint rather than starting over.
                    XCTAssertEqual(
                        rerun["records_read"] as Int,
                        try StoreInspection.int(db, "SELECT COUNT(*) FROM record WHERE seq > ?", [checkpoint]),
                        "trial \(index)")
                }
            }
            try assertMatchesReference(db, "derive trial \(index) (all: \(all), killed after \(threshold) records)")
            XCTAssertEqual(
                try StoreInspection.int(
                    db, "SELECT COUNT(*) FROM summary WHERE summary_version <> \(SummaryDeriver.currentVersion)"), 0)
        }
        XCTAssertGreaterThan(midRunKills, 0, "at least one kill landed mid-run")
    }

    func testDeriveAllKilledThenRerunMatchesUninterrupted() throws {
        // Damaged derived values make --all rewrite every summary.
        try deriveKilledThenRerun(
            all: true, prepare: "UPDATE summary SET summary_json = '{}', floor_area_sqm = -1, wall_count = 0",
            thresholds: [1, 400, 1300])
    }

    func testStaleDeriveKilledThenRerunMatchesUninterrupted() throws {
        try deriveKilledThenRerun(all: false, prepare: "UPDATE summary SET summary_version = 0", thresholds: [20, 900])
    }

    // MARK: - SIGTERM / SIGINT

    func testImportStoppedBySignalsThenRerunMatchesUninterrupted() throws {
        var interrupted = 0
        for (sig, expected) in [(SIGTERM, Int32(143)), (SIGINT, Int32(130))] {
            let db = dir.file("import-\(sig).sqlite")
            let child = try CommandLineTool.Child(importArguments(db), stderrPath: dir.file("signal.err"))
            let running = CommandLineTool.waitForProgress(child, db: db, command: "import", records: 100)
            child.signal(sig)
            let run = try XCTUnwrap(
                stoppedRun(child, db: db, running: running != nil, finished: corpus.referenceExit, expected: expected))
            if run.interrupted {
                interrupted += 1
                XCTAssertLessThan(run.row["records_read"] as Int, 2000)
            }
            try assertRerunResumes(
                run.row, importArguments(db), db: db, status: corpus.referenceExit, "import stopped by signal \(sig)")
        }
        XCTAssertGreaterThan(interrupted, 0, "at least one signal landed mid-run")
    }

    func testDeriveStoppedBySignalsThenRerunMatchesUninterrupted() throws {
        var interrupted = 0
        for (sig, expected) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            let db = try referenceCopy("derive-\(sig).sqlite", "UPDATE summary SET summary_version = 0")
            let before = try XCTUnwrap(CommandLineTool.latestRun(db)?["id"] as Int64?)
            let child = try CommandLineTool.Child(deriveArguments(db, all: true), stderrPath: dir.file("signal.err"))
            let running = CommandLineTool.waitForProgress(child, db: db, command: "derive", records: 40, after: before)
            child.signal(sig)
            let run = try XCTUnwrap(stoppedRun(child, db: db, running: running != nil, finished: 0, expected: expected))
            if run.interrupted {
                interrupted += 1
                // The batch in hand was committed with its checkpoint.
                let checkpoint: Int64 = try XCTUnwrap(run.row["checkpoint_seq"])
                XCTAssertEqual(
                    try StoreInspection.int(
                        db,
                        "SELECT COUNT(*) FROM summary WHERE summary_version = \(SummaryDeriver.currentVersion) "
                            + "AND record_seq > ?", [checkpoint]),
                    0)
                XCTAssertEqual(
                    try StoreInspection.int(
                        db, "SELECT COUNT(*) FROM summary WHERE summary_version = 0 AND record_seq <= ?", [checkpoint]),
                    0)
            }
            try assertRerunResumes(
                run.row, deriveArguments(db, all: true), db: db, status: 0, "derive stopped by signal \(sig)")
        }
        XCTAssertGreaterThan(interrupted, 0, "at least one signal landed mid-run")
    }

    /// Waits for `child`, just sent a signal, and reads its run: `interrupted` when the signal
    /// landed mid-run (`running`, and the process did not end with its `finished` status), which
    /// then must have exited with `expected` and marked its run interrupted.
    private func stoppedRun(
        _ child: CommandLineTool.Child, db: String, running: Bool, finished: Int32, expected: Int32,
        file: StaticString = #filePath, line: UInt = #line
    ) -> (row: Row, interrupted: Bool)? {
        let (status, signaled) = child.wait()
        XCTAssertFalse(signaled, "the signal is handled, not fatal", file: file, line: line)
        guard let run = CommandLineTool.latestRun(db) else { return nil }
        guard running, status != finished else { return (run, false) }
        XCTAssertEqual(status, expected, child.stderr, file: file, line: line)
        XCTAssertEqual(run["status"] as String, "interrupted", file: file, line: line)
        XCTAssertEqual(run["exit_status"] as Int32, expected, file: file, line: line)
        return (run, true)
    }

    /// Reruns `arguments` after `run`: it ends with `status`, resumes `run` when that was
    /// interrupted, and leaves `db` as the uninterrupted reference.
    private func assertRerunResumes(
        _ run: Row, _ arguments: [String], db: String, status: Int32, _ what: String
    ) throws {
        XCTAssertEqual(try CommandLineTool.run(arguments, stderrPath: dir.file("rerun.err")), status, what)
        let rerun = try XCTUnwrap(CommandLineTool.latestRun(db))
        if (run["status"] as String) == "interrupted" {
            XCTAssertEqual(rerun["resumed_from"] as Int64?, run["id"] as Int64, what)
        }
        try assertMatchesReference(db, what)
    }
}
