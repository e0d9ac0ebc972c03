import Foundation
import XCTest

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// The server's health as `rederive health` and the throttle read it, against a real
/// streaming standby of the throwaway cluster whose replay is paused and resumed.
final class PostgresHealthTests: PostgresTestCase {
    private func health(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(["health", "--db", url] + arguments, scratch: dir)
    }

    private func signals(_ result: CommandLineResult) throws -> [String: [String: Any]] {
        let object = try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any]
        let list = object?["signals"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: list.map { ($0["signal"] as? String ?? "", $0) })
    }

    func testAPausedStandbysReplayLagTurnsRedAndClearsWhenReplayResumes() throws {
        try importFixtures()
        let standby = try cluster.standby()
        defer { standby.stop() }
        let calm = try health(["--json", "--check", "--max-standby-lag", "4MB"])
        XCTAssertEqual(calm.status, 0, calm.stderr + calm.stdout)
        XCTAssertEqual(try signals(calm)["standby_lag_bytes"]?["grade"] as? String, "green")

        try standby.pauseReplay()
        defer { try? standby.resumeReplay() }
        try cluster.sql("CREATE TABLE filler AS SELECT repeat('x', 1000) AS t FROM generate_series(1, 12000)", url: url)
        var lag = 0.0
        for _ in 0..<100 where lag < 8_000_000 {
            lag = try cluster.replayLagBytes()
            usleep(100_000)
        }
        XCTAssertGreaterThan(lag, 8_000_000, "the paused standby falls behind")
        let behind = try health(["--json", "--check", "--max-standby-lag", "4MB"])
        XCTAssertEqual(behind.status, 5, behind.stderr + behind.stdout)
        let signal = try signals(behind)["standby_lag_bytes"]
        XCTAssertEqual(signal?["grade"] as? String, "red")
        XCTAssertGreaterThan(signal?["value"] as? Double ?? 0, 4_000_000)
        XCTAssertTrue(behind.stdout.contains("standby replay lag"), behind.stdout)
        let text = try health(["--max-standby-lag", "4MB"])
        XCTAssertTrue(text.stdout.contains("the throttle would wait (standby replay lag"), text.stdout)

        try standby.resumeReplay()
        var cleared = behind
        for _ in 0..<100 {
            cleared = try health(["--json", "--check", "--max-standby-lag", "4MB"])
            if cleared.status == 0 { break }
            usleep(100_000)
        }
        XCTAssertEqual(cleared.status, 0, "green again once replay resumes: \(cleared.stdout)")
    }

    func testARoleWithoutPgMonitorSeesSignalsAsUnmeasurableNotZero() throws {
        try importFixtures()
        let standby = try cluster.standby()
        defer { standby.stop() }
        let role = "plain_" + UUID().uuidString.prefix(8).lowercased()
        try cluster.sql("CREATE ROLE \(role) LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(role)", url: url)
        let plain = url.replacingOccurrences(of: "postgres://postgres@", with: "postgres://\(role)@")
        let r = try CommandLineTool.invoke(["health", "--db", plain, "--json"], scratch: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let seen = try signals(r)
        for name in ["standby_lag_bytes", "vacuums_on_our_tables", "oldest_xmin_age", "active_sessions_share"] {
            XCTAssertTrue(
                (seen[name]?["unmeasurable"] as? String)?.contains("pg_monitor") == true, "\(name): \(r.stdout)")
        }
        XCTAssertEqual(seen["lock_waits_on_our_tables"]?["grade"] as? String, "green")
        try cluster.sql("GRANT pg_monitor TO \(role)", url: url)
        let monitored = try signals(try CommandLineTool.invoke(["health", "--db", plain, "--json"], scratch: dir))
        XCTAssertEqual(monitored["standby_lag_bytes"]?["grade"] as? String, "green")
        XCTAssertEqual(monitored["oldest_xmin_age"]?["unmeasurable"] as? NSNull, NSNull())
    }

    func testDeadRowsOnOurTablesAreCounted() throws {
        try importFixtures()
        XCTAssertEqual(
            try CommandLineTool.run(["derive", "--db", url, "--all", "--rewrite", "-q"], stderrPath: dir.file("e")), 0)
        let store = try PostgresStore(url: url, readOnly: true)
        defer { store.close() }
        var dead = 0.0
        for _ in 0..<50 where dead == 0 {  // the statistics collector reports within a moment
            dead = try store.readHealth()[.deadRows] ?? 0
            usleep(100_000)
        }
        XCTAssertGreaterThan(dead, 0, "rewritten summaries leave dead rows until vacuum")
    }
}
