import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Every exit leaves a trace on a PostgreSQL store too: a refused nightly pipeline (exit 7)
/// writes its results and its metrics, and says why under `--quiet`.
final class PostgresExitTraceTests: PostgresTestCase {
    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    func testARefusedPipelineOnAServerWritesItsResultsAndMetrics() throws {
        let metrics = dir.file("nightly.prom"), results = dir.file("results.json")
        let imported = try rederive(["import", "Fixtures/exports", "--db", url, "-q", "--metrics-file", metrics])
        XCTAssertEqual(imported.status, ExitStatus.ok.rawValue, imported.stderr)
        try cluster.sql("UPDATE summary SET summary_version = 0, floor_area_sqm = 1.5 WHERE record_seq <= 5", url: url)
        let pipeline = dir.file("nightly.yml")
        try "version: 1\nname: nightly\nstages:\n  - derive: { max-changes: 0 }\n  - export: { out: out.jsonl }\n"
            .write(toFile: pipeline, atomically: true, encoding: .utf8)
        let r = try rederive(["run", pipeline, "--db", url, "--results-file", results, "--metrics-file", metrics, "-q"])
        XCTAssertEqual(r.status, ExitStatus.refused.rawValue, r.stderr)
        let document = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: results))) as? [String: Any])
        XCTAssertEqual(document["exitStatus"] as? Int, 7)
        XCTAssertTrue((document["reason"] as? String ?? "").contains("would change"), "\(document)")
        XCTAssertEqual(
            (document["stages"] as? [[String: Any]])?.map { $0["status"] as? String }, ["failed", "not_run"])
        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        XCTAssertTrue(
            text.contains("rederive_run_exit_status{pipeline=\"nightly\",stage=\"derive\",command=\"derive\"} 7"), text)
        XCTAssertTrue(text.contains("rederive_last_success_timestamp_seconds{"), "the last success is kept: \(text)")
        XCTAssertTrue(r.stderr.contains("would change"), r.stderr)
    }

    /// An unreachable server: exit 2 and one line that says what to check (issue 24 item 8).
    func testAnUnreachableServerIsOneClearLine() throws {
        let r = try rederive(["status", "--db", "postgres://rederive@127.0.0.1:1/rooms"])
        XCTAssertEqual(r.status, ExitStatus.failure.rawValue, r.stderr)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot connect: connection refused: is the server running"), r.stderr)
        XCTAssertFalse(r.stderr.contains("SingleConnectionFailure"), r.stderr)
    }
}
