import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `rederive run` on the built binary: paths relative to the pipeline file, per-run report
/// names, `--report`, one `--json` document and `--results-file`, typed JSON logs, metrics.
final class PipelineRunCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(
        _ arguments: [String],
        in directory: URL = RoomFixtures.repoRoot
    ) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, directory: directory, scratch: dir)
    }

    private var fixtures: String { RoomFixtures.repoRoot.appendingPathComponent("Fixtures").path }

    /// A pipeline at `dir/pipes/p.yml` writing to `../out/...` (relative to the file).
    private func writePipeline(paths: String, extra: String = "") throws -> String {
        try dir.write(
            """
            version: 1
            name: p
            store: ../out/p.sqlite
            create-dirs: true
            metrics-file: ../out/p.prom
            stages:
              - import: { paths: [\(paths)], report: ../out/import-issues.jsonl }
              - derive: { report: ../out/derive-issues.jsonl }
              - export: { out: ../out/p.jsonl }
            \(extra)
            """, to: "pipes/p.yml")
    }

    /// The store's tag, which the names a pipeline file gives every store carry (`StoreNaming`).
    private func tag(_ db: String) throws -> String {
        let ids = try StoreInspection.rows(db, "SELECT value FROM store_info WHERE key = 'store_id'")
        return StoreNaming.tag(try XCTUnwrap(ids.first?["value"] as String?))
    }

    private func object(_ data: Data) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testPathsInThePipelineFileAreRelativeToItsFolderAndEveryWrittenFileIsLogged() throws {
        let file = try writePipeline(paths: fixtures)
        // Run from the repository root: nothing may land in its out/.
        let r = try rederive(["run", file])
        XCTAssertEqual(r.status, 3, r.stderr)
        let out = dir.file("out")
        let t = try tag(out + "/p.sqlite")
        for name in ["p.sqlite", "p-\(t).prom", "p.jsonl", "import-issues-\(t)-run1.jsonl"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + name), "\(name) under ../out")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/import-issues.jsonl"), "per-run name only")
        XCTAssertTrue(r.stderr.contains("issue report written to \(out)/import-issues-\(t)-run1.jsonl"), r.stderr)
        XCTAssertTrue(r.stderr.contains("output written to \(out)/p.jsonl"), r.stderr)
        XCTAssertTrue(r.stderr.contains("metrics written to \(out)/p-\(t).prom"), r.stderr)

        // The next run writes its own report; the first one is kept.
        let again = try rederive(["run", file, "--quiet"])
        XCTAssertEqual(again.status, 3, again.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/import-issues-\(t)-run1.jsonl"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/import-issues-\(t)-run4.jsonl"))

        // Command-line paths stay relative to the working directory.
        let elsewhere = URL(fileURLWithPath: dir.file("cwd"))
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let flags = try rederive(["run", file, "--db", "mine.sqlite", "-o", "mine.jsonl", "--quiet"], in: elsewhere)
        XCTAssertEqual(flags.status, 3, flags.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: elsewhere.path + "/mine.sqlite"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: elsewhere.path + "/mine.jsonl"))
    }

    func testReportFlagGivesEveryStageItsOwnReport() throws {
        let file = try writePipeline(paths: fixtures)
        let reports = dir.file("reports")
        XCTAssertEqual(try rederive(["run", file, "--report", reports, "--quiet"]).status, 3)
        let names = try FileManager.default.contentsOfDirectory(atPath: reports).sorted()
        let t = try tag(dir.file("out/p.sqlite"))
        // The derive stage had no issue: no (empty) report of its own (issue 36 #5).
        XCTAssertEqual(names, ["p-import-issues-\(t)-run1.jsonl"])
        XCTAssertEqual(try rederive(["run", file, "--report", dir.file("r/x.jsonl"), "--quiet"]).status, 3)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("r/x-import-\(t)-run4.jsonl")))
    }

    func testJSONIsOneDocumentForThePipelineAlsoWrittenAsResultsFile() throws {
        let file = try writePipeline(paths: fixtures + "/exports")
        let results = dir.file("results/run.json")
        let r = try rederive(["run", file, "--json", "--results-file", results, "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 1, "one document")
        let doc = try object(r.stdoutData)
        XCTAssertEqual(doc["pipeline"] as? String, "p")
        XCTAssertEqual(doc["store"] as? String, dir.file("out/p.sqlite"))
        XCTAssertEqual(doc["exitStatus"] as? Int, 0)
        XCTAssertNotNil(doc["startedAt"] as? String)
        XCTAssertNotNil(doc["finishedAt"] as? String)
        let stages = try XCTUnwrap(doc["stages"] as? [[String: Any]])
        XCTAssertEqual(stages.map { $0["name"] as? String }, ["import", "derive", "export"])
        XCTAssertEqual(stages.map { $0["index"] as? Int }, [0, 1, 2])
        XCTAssertEqual(stages.map { $0["status"] as? String }, ["completed", "completed", "completed"])
        XCTAssertEqual((stages[0]["counts"] as? [String: Int])?["imported"], 32)
        let t = try tag(dir.file("out/p.sqlite"))
        // No issue, no report file: the document names none (issue 36 #5).
        XCTAssertTrue(stages[0]["report"] is NSNull, "\(stages[0])")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out/import-issues-\(t)-run1.jsonl")))
        XCTAssertEqual(stages[2]["output"] as? String, dir.file("out/p.jsonl"))
        XCTAssertNotNil(stages[1]["durationSeconds"] as? Double)
        XCTAssertEqual(try object(try Data(contentsOf: URL(fileURLWithPath: results)))["pipeline"] as? String, "p")
    }

    func testJSONLogsCarryTypedCountsInsidePipelines() throws {
        let file = try writePipeline(paths: fixtures + "/exports")
        let r = try rederive(["run", file, "--log-format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = try r.stderr.split(separator: "\n").map { try object(Data($0.utf8)) }
        let tally = try XCTUnwrap(lines.first { $0["stage"] as? String == "import" && $0["counts"] != nil })
        XCTAssertEqual(tally["exit"] as? Int, 0)
        XCTAssertEqual(tally["index"] as? Int, 0)
        XCTAssertEqual((tally["counts"] as? [String: Any])?["imported"] as? Int, 32)
        XCTAssertEqual(tally["pipeline"] as? String, "p")
        let end = try XCTUnwrap(lines.last)
        XCTAssertEqual(end["exit"] as? Int, 0, "the pipeline's exit status is a number")
    }

    func testMetricsHaveStageNamesAndStoreFiguresAndADryRunLeavesThemAlone() throws {
        let file = try writePipeline(paths: fixtures)
        XCTAssertEqual(try rederive(["run", file, "--quiet"]).status, 3)
        let metrics = dir.file("out/p-\(try tag(dir.file("out/p.sqlite"))).prom")
        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        let newer = #"rederive_records{pipeline="p",stage="derive",command="derive",outcome="newer"} 0"#
        XCTAssertTrue(text.contains(newer), text)
        XCTAssertTrue(text.contains(#"rederive_store_open_failures{pipeline="p"} 14"#), text)
        XCTAssertTrue(text.contains(#"rederive_store_unacknowledged_failures{pipeline="p"} 14"#), text)
        XCTAssertTrue(text.contains(#"rederive_store_stale_records{pipeline="p"} 0"#), text)
        XCTAssertTrue(text.contains("rederive_last_success_timestamp_seconds"), text)
        XCTAssertFalse(text.contains("e+") || text.contains(".999"), "no float noise: \(text)")

        // Acknowledged failures stop counting in the gauge an alert uses, as in `status --check` (issue 36 #6).
        let db = dir.file("out/p.sqlite")
        XCTAssertEqual(try rederive(["failures", "--db", db, "--ack", "--file", "corrupt-records.jsonl"]).status, 0)
        XCTAssertEqual(try rederive(["failures", "--db", db, "--ack", "--code", "truncated_frame"]).status, 0)
        XCTAssertEqual(try rederive(["status", "--db", db, "--check"]).status, 0)
        XCTAssertEqual(try rederive(["run", file, "--quiet"]).status, 3, "the same corrupt records again")
        let acked = try String(contentsOfFile: metrics, encoding: .utf8)
        XCTAssertTrue(acked.contains(#"rederive_store_open_failures{pipeline="p"} 14"#), acked)
        XCTAssertTrue(acked.contains(#"rederive_store_unacknowledged_failures{pipeline="p"} 0"#), acked)
        XCTAssertEqual(PromLint.problems(acked), [])

        let dry = try rederive(["run", file, "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stderr.contains("left unchanged (dry run)"), dry.stderr)
        XCTAssertEqual(try String(contentsOfFile: metrics, encoding: .utf8), acked)
    }
}
