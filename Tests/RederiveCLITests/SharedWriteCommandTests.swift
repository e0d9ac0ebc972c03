import Foundation
import GRDB
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Issue 33 on SQLite for the writes other than `derive`: an `import` and a `revert` take the
/// sharing flags (`--max-rate`, `--batch-seconds`, `--exit-when-paused`) and obey `pause` from
/// another process the way a derive does, through the same governor.
final class SharedWriteCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    private func corpus(_ records: Int) throws -> String {
        try GeneratedCorpus.path(records: records, seed: 33, coreModelBytes: 200)
    }

    /// What the import run has committed so far: its records read and its batch rows.
    private func progress(_ db: String) throws -> [Int64] {
        let rows = try StoreInspection.rows(
            db,
            """
            SELECT max(records_read) AS n, (SELECT count(*) FROM run_batch) AS b FROM run WHERE command = 'import'
            """)
        return [rows.first?["n"] ?? 0, rows.first?["b"] ?? 0]
    }

    /// The batch rows of `runID`: records and why each waited.
    private func batches(_ db: String, run runID: Int64) throws -> [(records: Int, reason: String?)] {
        try StoreInspection.rows(db, "SELECT records, wait_reason FROM run_batch WHERE run_id = ? ORDER BY id", [runID])
            .map { ($0["records"], $0["wait_reason"]) }
    }

    private static let importing = ["--batch-size", "40", "--workers", "1"]

    func testAPausedImportUnderMaxRateCommitsNothingMoreAndCarriesOnToTheUninterruptedStore() throws {
        let source = try corpus(1200)
        let reference = dir.file("reference.sqlite")
        XCTAssertEqual(try rederive(["import", source, "--db", reference, "-q"] + Self.importing).status, 0)
        let db = dir.file("paused.sqlite")
        // 400 records a second for the whole run: about 3 s unpaused.
        let child = try CommandLineTool.Child(
            ["import", source, "--db", db, "--max-rate", "400"] + Self.importing, stderrPath: dir.file("import.err"))
        let run = try XCTUnwrap(CommandLineTool.waitForProgress(child, db: db, command: "import", records: 200))
        let pause = try rederive(["pause", "--db", db, "--reason", "peak traffic"])
        XCTAssertEqual(pause.status, 0, "no exit 6 while the import holds the run lock: \(pause.stderr)")
        Thread.sleep(forTimeInterval: 2.5)
        let first = try progress(db)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try progress(db), first, "nothing committed while paused")
        XCTAssertLessThan(first[0], 1200, "paused part way")
        XCTAssertTrue(child.isRunning, "a paused import waits")
        XCTAssertTrue(try rederive(["status", "--db", db]).stdout.contains("(peak traffic)"))

        XCTAssertEqual(try rederive(["resume", "--db", db]).status, 0)
        let (exit, _) = child.wait()
        XCTAssertEqual(exit, 0, child.stderr)
        XCTAssertTrue(child.stderr.contains("resumed after"), child.stderr)
        StoreInspection.assertEqual(
            try StoreInspection.dump(db), try StoreInspection.dump(reference), "paused and resumed vs uninterrupted")
        let rows = try batches(db, run: run["id"])
        XCTAssertEqual(rows.map(\.records).reduce(0, +), 1200, "every record in one recorded batch")
        XCTAssertEqual(rows.filter { $0.reason == "paused" }.count, 1, "\(rows)")
        XCTAssertGreaterThan(rows.filter { $0.reason == "max-rate" }.count, 10, "the rate held it back: \(rows)")
    }

    func testImportWithExitWhenPausedExitsNineAndTheSameCommandCarriesOn() throws {
        let source = try corpus(600)
        let reference = dir.file("reference.sqlite")
        XCTAssertEqual(try rederive(["import", source, "--db", reference, "-q"] + Self.importing).status, 0)
        let db = dir.file("cron.sqlite")
        let command = ["import", source, "--db", db, "--max-rate", "300", "--exit-when-paused"] + Self.importing
        let child = try CommandLineTool.Child(command, stderrPath: dir.file("import.err"))
        XCTAssertNotNil(CommandLineTool.waitForProgress(child, db: db, command: "import", records: 100))
        XCTAssertEqual(try rederive(["pause", "--db", db, "--reason", "deploy"]).status, 0)
        let (exit, _) = child.wait(timeout: 30)
        XCTAssertEqual(exit, ExitStatus.paused.rawValue, child.stderr)
        XCTAssertLessThan(try progress(db)[0], 600, "it stopped part way")
        let again = try rederive(command)
        XCTAssertEqual(again.status, ExitStatus.paused.rawValue, "started while paused: \(again.stderr)")
        XCTAssertTrue(again.stderr.contains("deploy"), again.stderr)

        XCTAssertEqual(try rederive(["resume", "--db", db]).status, 0)
        let done = try rederive(command)
        XCTAssertEqual(done.status, 0, done.stderr)
        XCTAssertTrue(done.stderr.contains("continuing unfinished run"), done.stderr)
        StoreInspection.assertEqual(
            try StoreInspection.dump(db), try StoreInspection.dump(reference), "exited, rerun vs uninterrupted")
    }

    func testImportBatchSecondsShrinksItsBatches() throws {
        let db = dir.file("sized.sqlite")
        // A target far below what 250 records take: the batches shrink from the first.
        let r = try rederive(
            ["import", try corpus(1500), "--db", db, "--batch-size", "250", "--batch-seconds", "0.005", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let sizes = try batches(db, run: 1).map(\.records).filter { $0 > 0 }
        XCTAssertEqual(sizes.first, 250, "--batch-size is the first batch")
        XCTAssertLessThan(sizes.dropFirst(6).max() ?? 250, 250, "later batches are smaller: \(sizes)")
        XCTAssertEqual(sizes.reduce(0, +), 1500)
        XCTAssertEqual(try rederive(["import", try corpus(10), "--db", db, "--max-rate", "0"]).status, 1)
    }

    func testARevertObeysAPauseTheRateAndBatchSeconds() throws {
        let db = dir.file("rooms.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/exports", "--db", db, "-q"]).status, 0)
        let n = try StoreInspection.int(db, "SELECT count(*) FROM summary")
        // Summaries an older build derived: the derive replaces every one, and keeps what it replaced.
        try StoreInspection.execute(
            db, "UPDATE summary SET summary_version = 0, fingerprint = 'v0-old', summary_json = '{\"old\":1}'")
        XCTAssertEqual(try rederive(["derive", "--db", db, "-q"]).status, 0)
        let backfill = try XCTUnwrap(StoreInspection.run(db))["id"] as Int64
        let revert = ["revert", "--db", db, "--run", String(backfill), "--batch-size", "4", "--exit-when-paused"]

        XCTAssertEqual(try rederive(["pause", "--db", db, "--reason", "deploy"]).status, 0)
        let paused = try rederive(revert + ["--max-rate", "100"])
        XCTAssertEqual(paused.status, ExitStatus.paused.rawValue, paused.stderr)
        XCTAssertEqual(
            try StoreInspection.int(db, "SELECT count(*) FROM summary WHERE summary_version = 0"), 0,
            "nothing restored while paused")
        XCTAssertEqual(try rederive(["resume", "--db", db]).status, 0)
        // Batches far slower than the target (0.01 ms, where 4 records take far more than the 0.02 ms
        // that would keep 2): the sizer's size is 1 from the first batch handed over on.
        let done = try rederive(revert + ["--max-rate", "100", "--batch-seconds", "0.00001"])
        XCTAssertEqual(done.status, 0, done.stderr)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT count(*) FROM summary WHERE summary_version = 0"), n)
        let run = try XCTUnwrap(StoreInspection.run(db))["id"] as Int64
        let rows = try batches(db, run: run)
        XCTAssertEqual(rows.map(\.records).reduce(0, +), n, "\(rows)")
        XCTAssertEqual(rows.first?.records, 4, "--batch-size is the first batch")
        // A revert reads each batch on the driver's thread once the one before was handed over and the
        // governor resized the job (it reads none ahead), so its second batch is already the sizer's.
        XCTAssertEqual(rows.dropFirst().first?.records, 1, "the second is the sizer's size: \(rows)")
        XCTAssertEqual(rows.dropFirst().map(\.records).max(), 1, "then sized to --batch-seconds: \(rows)")
        XCTAssertGreaterThan(rows.filter { $0.reason == "max-rate" }.count, n / 8, "the rate held it back: \(rows)")
    }
}
