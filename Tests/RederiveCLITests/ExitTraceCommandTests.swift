import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Every exit leaves a trace (issue 24 item 2): whatever the exit status, a run that read its
/// configuration prints its `--json` document and writes `--results-file` with its status and
/// reason, rewrites the metrics file (exit status, last run; the last success kept), and says
/// why it did not exit 0 in a line `--quiet` keeps.
final class ExitTraceCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var db: String!
    private var metrics: String!
    /// The last-success time the first, successful run wrote.
    private var lastSuccess = ""

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        db = dir.file("rooms.sqlite")
        metrics = dir.file("nightly.prom")
        let first = try rederive([
            "import", "Fixtures/exports", "--db", db, "-q", "--metrics-file", metrics, "--skip-imported-files",
        ])
        XCTAssertEqual(first.status, ExitStatus.ok.rawValue, first.stderr)
        lastSuccess = try XCTUnwrap(gauge("rederive_last_success_timestamp_seconds"))
        // The next run's last-run time must differ from the first's.
        sleep(1)
    }

    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    /// The value of the first sample of `name` in the metrics file (with `labels` in its label set).
    private func gauge(_ name: String, _ labels: String = "") throws -> String? {
        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        return text.split(separator: "\n").first { $0.hasPrefix(name + "{") && (labels.isEmpty || $0.contains(labels)) }
            .map { String($0.split(separator: " ").last!) }
    }

    /// The metrics file says `status` for `labels`, the last run is newer than the first
    /// run's and the last success is still the first run's.
    private func assertMetrics(
        exit status: ExitStatus, _ labels: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(try gauge("rederive_run_exit_status", labels), "\(status.rawValue)", file: file, line: line)
        XCTAssertEqual(try gauge("rederive_last_success_timestamp_seconds"), lastSuccess, file: file, line: line)
        let lastRun = try XCTUnwrap(Double(try gauge("rederive_last_run_timestamp_seconds") ?? ""))
        XCTAssertGreaterThan(lastRun, try XCTUnwrap(Double(lastSuccess)), file: file, line: line)
    }

    private func object(_ json: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], json)
    }

    private func pipeline(_ stages: String) throws -> String {
        let path = dir.file("nightly.yml")
        try "version: 1\nname: nightly\nstages:\n\(stages)".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Exit 7 in a pipeline (the first night after a fixed build): the import committed, the
    /// derive stage refused; the document, the results file and the metrics say so.
    func testARefusedPipelineWritesItsResultsAndMetrics() throws {
        try StoreInspection.execute(
            db, "UPDATE summary SET summary_version = 0, floor_area_sqm = 1.5 WHERE record_seq <= 5")
        let results = dir.file("results.json")
        let exports = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path
        let path = try pipeline(
            """
              - import: { paths: [\(exports)], skip-imported-files: true }
              - derive: { max-changes: 0 }
              - export: { out: out.jsonl }
            """)
        let r = try rederive([
            "run", path, "--db", db, "--json", "--results-file", results, "--metrics-file", metrics, "--quiet",
        ])
        XCTAssertEqual(r.status, ExitStatus.refused.rawValue, r.stderr)
        let document = try object(r.stdout)
        XCTAssertEqual(document["exitStatus"] as? Int, 7)
        XCTAssertEqual(document["status"] as? String, "error")
        XCTAssertTrue((document["reason"] as? String ?? "").contains("existing summaries would be rewritten"), r.stdout)
        let stages = try XCTUnwrap(document["stages"] as? [[String: Any]])
        XCTAssertEqual(stages.map { $0["status"] as? String }, ["completed", "failed", "not_run"])
        XCTAssertEqual(stages[1]["exitStatus"] as? Int, 7)
        XCTAssertEqual(try String(contentsOfFile: results, encoding: .utf8), r.stdout)
        try assertMetrics(exit: .refused, "stage=\"derive\"")
        XCTAssertEqual(try gauge("rederive_run_exit_status", "stage=\"import\""), "0")
        // Under --quiet the reason is an error line, and the closing line is not needed for it.
        XCTAssertTrue(r.stderr.contains("error"), r.stderr)
        XCTAssertTrue(r.stderr.contains("existing summaries would be rewritten"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out.jsonl")), "export not run")
    }

    /// Exit 7 from a single command, and exit 1 after the command line was read (no such store).
    func testARefusedOrMistypedCommandPrintsItsDocumentAndWritesItsMetrics() throws {
        try StoreInspection.execute(
            db, "UPDATE summary SET summary_version = 0, floor_area_sqm = 1.5 WHERE record_seq <= 5")
        let refused = try rederive([
            "derive", "--db", db, "--max-changes", "0", "--json", "--metrics-file", metrics, "-q",
        ])
        XCTAssertEqual(refused.status, ExitStatus.refused.rawValue, refused.stderr)
        let document = try object(refused.stdout)
        XCTAssertEqual(document["exitStatus"] as? Int, 7)
        XCTAssertEqual(document["status"] as? String, "failed")
        XCTAssertTrue((document["stopReason"] as? String ?? "").contains("would change"), refused.stdout)
        try assertMetrics(exit: .refused, "command=\"derive\"")

        let missing = try rederive(["derive", "--db", dir.file("typo.sqlite"), "--json", "--metrics-file", metrics])
        XCTAssertEqual(missing.status, ExitStatus.usage.rawValue, missing.stderr)
        XCTAssertEqual(try object(missing.stdout)["exitStatus"] as? Int, 1)
        try assertMetrics(exit: .usage, "command=\"derive\"")
        // A metrics path the checks refuse is never written, whatever the exit.
        let bad = try rederive(["derive", "--db", db, "--metrics-file", db])
        XCTAssertEqual(bad.status, ExitStatus.usage.rawValue, bad.stderr)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM record") > 0, true)
    }

    /// Exit 2: a store a newer rederive migrated.
    func testAFatalErrorWritesTheMetrics() throws {
        do {
            let store = try SQLiteStore(path: db)
            try store.pool.write {
                try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')")
            }
            store.close()
        }
        let r = try rederive(["import", "Fixtures/exports", "--db", db, "--json", "--metrics-file", metrics, "-q"])
        XCTAssertEqual(r.status, ExitStatus.failure.rawValue, r.stderr)
        XCTAssertEqual(try object(r.stdout)["exitStatus"] as? Int, 2)
        XCTAssertTrue(r.stderr.contains("newer rederive"), r.stderr)
        try assertMetrics(exit: .failure, "command=\"import\"")
    }

    /// Exit 6: another writing run holds the store; the pipeline never started a stage.
    func testABusyPipelineWritesItsResultsAndMetrics() throws {
        let lock = try RunLock.acquire(store: db, command: "rederive test holder")
        defer { lock.release() }
        let results = dir.file("results.json")
        let path = try pipeline("  - derive: {}\n")
        let r = try rederive(["run", path, "--db", db, "--results-file", results, "--metrics-file", metrics, "-q"])
        XCTAssertEqual(r.status, ExitStatus.busy.rawValue, r.stderr)
        let document = try object(try String(contentsOfFile: results, encoding: .utf8))
        XCTAssertEqual(document["exitStatus"] as? Int, 6)
        XCTAssertTrue((document["reason"] as? String ?? "").contains("rederive test holder"), "\(document)")
        XCTAssertEqual((document["stages"] as? [[String: Any]])?.map { $0["status"] as? String }, ["not_run"])
        try assertMetrics(exit: .busy, "pipeline=\"nightly\"")
    }

    /// Exit 4 under --quiet: the error budget's reason is an error line, not only the info tally.
    func testTheErrorBudgetsReasonSurvivesQuiet() throws {
        let r = try rederive([
            "import", "Fixtures/corrupt", "--db", dir.file("other.sqlite"), "--max-errors", "0", "-q",
            "--metrics-file", metrics,
        ])
        XCTAssertEqual(r.status, ExitStatus.errorBudget.rawValue, r.stderr)
        let line = r.stderr.split(separator: "\n").first { $0.contains("more than the error budget allows") }
        XCTAssertNotNil(line, r.stderr)
        XCTAssertTrue(line?.contains("error") ?? false, r.stderr)
        try assertMetrics(exit: .errorBudget, "command=\"import\"")
    }

    /// `make nightly` treats 3 as success like `make run`, and fails naming any other status
    /// (the build is taken as done: `-o build`; a stand-in binary exits with the status).
    func testMakeNightlyTreatsThreeAsSuccess() throws {
        for (status, succeeds) in [(0, true), (3, true), (4, false), (7, false)] {
            let fake = dir.file("fake-\(status).sh")
            try "#!/bin/sh\nexit \(status)\n".write(toFile: fake, atomically: true, encoding: .utf8)
            chmod(fake, 0o755)
            let r = try CommandLineTool.invoke(
                [
                    "make", "-s", "-o", "build", "nightly", "REDERIVE=\(fake)", "DB=\(db!)",
                    "OUT=\(dir.file("o.jsonl"))",
                ],
                executable: "/usr/bin/env", scratch: dir)
            XCTAssertEqual(r.status == 0, succeeds, "exit \(status): \(r.stderr)")
            if !succeeds { XCTAssertTrue(r.stderr.contains("rederive exited \(status)"), r.stderr) }
        }
    }
}
