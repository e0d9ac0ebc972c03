import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `history --prune` on a real server (`PostgresCluster`) also removes the derive range rows
/// of the runs it prunes (one row per --batch-size records of every derive, which would
/// otherwise grow without bound), keeps those of a run a rerun could continue, and `status`
/// shows how many are kept.
final class PostgresPruneRangesTests: PostgresTestCase {
    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        let result = try CommandLineTool.invoke(arguments, scratch: dir)
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
        return result
    }

    private func rangeRows() throws -> [String: Int]? {
        let status = try rederive(["status", "--db", url, "--json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: status.stdoutData) as? [String: Any])
        return object["rangeRows"] as? [String: Int]
    }

    private func rangesByRun() throws -> [String] {
        try cluster.sql("SELECT run_id || ':' || count(*) FROM derive_range GROUP BY run_id ORDER BY run_id", url: url)
    }

    /// The runs with batch rows (`run_batch`), which the same prunes remove with no run kept.
    private func batchRuns() throws -> [String] {
        try cluster.sql("SELECT DISTINCT run_id FROM run_batch ORDER BY run_id", url: url)
    }

    func testKeepRunsRemovesTheRangesOfOlderRunsAndStatusCountsThem() throws {
        _ = try rederive(["import", exports, "--db", url, "--quiet"])
        for _ in 0..<3 { _ = try rederive(["derive", "--db", url, "--all", "--batch-size", "5", "--quiet"]) }
        let before = try rangesByRun()
        XCTAssertEqual(before.count, 3, "\(before)")
        let perRun = try XCTUnwrap(Int(try XCTUnwrap(before.last?.split(separator: ":").last)))
        XCTAssertGreaterThan(perRun, 1)
        XCTAssertEqual(try rangeRows(), ["rows": 3 * perRun, "runs": 3])
        XCTAssertTrue(
            try rederive(["status", "--db", url]).stdout.contains("range rows     \(3 * perRun) kept for 3 run(s)"))

        let pruned = try rederive(["history", "--db", url, "--prune", "--keep-runs", "1"])
        XCTAssertTrue(pruned.stderr.contains(", \(2 * perRun) derive range rows of pruned runs"), pruned.stderr)
        XCTAssertEqual(try rangesByRun(), [before[2]])
        XCTAssertEqual(try rangeRows(), ["rows": perRun, "runs": 1])
        XCTAssertEqual(try batchRuns(), [String(try XCTUnwrap(before[2].split(separator: ":").first))])

        // A run a rerun could still continue keeps its ranges, however old.
        let latest = try XCTUnwrap(before[2].split(separator: ":").first)
        try cluster.sql("UPDATE run SET status = 'interrupted' WHERE id = \(latest)", url: url)
        _ = try rederive(["history", "--db", url, "--prune", "--before", "2999-01-01"])
        XCTAssertEqual(try rangesByRun(), [before[2]])
        XCTAssertEqual(try batchRuns(), [], "a run's batch rows are pruned whether or not it can be continued")
        try cluster.sql("UPDATE run SET status = 'completed' WHERE id = \(latest)", url: url)
        _ = try rederive(["history", "--db", url, "--prune", "--before", "2999-01-01"])
        XCTAssertEqual(try rangesByRun(), [])
        XCTAssertEqual(try rangeRows(), ["rows": 0, "runs": 0])
    }
}
