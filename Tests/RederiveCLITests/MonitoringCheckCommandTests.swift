import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `status --check` thresholds and window, and `failures --ack`/`--unack`/`--acknowledged`,
/// on the built binary; `scenario` runs on either engine (PostgreSQL: `PostgresMonitoringCheckTests`).
final class MonitoringCheckCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }

    override func tearDown() { dir = nil }

    /// The check fails with open failures, clears when the operator acknowledges them, and
    /// fails again when an acknowledgement is taken back or a failure comes back (its first
    /// sighting changes); `--within` and the thresholds decide what counts. `execute` runs
    /// SQL on the store (to age the ledger).
    static func scenario(
        db: String, scratch dir: TemporaryDirectory, execute: (String) throws -> Void,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        func rederive(_ arguments: [String]) throws -> CommandLineResult {
            try CommandLineTool.invoke(arguments + ["--db", db], scratch: dir)
        }
        func check(_ extra: [String] = [], _ expected: Int32, _ what: String) throws -> String {
            let r = try rederive(["status", "--check"] + extra)
            XCTAssertEqual(r.status, expected, "\(what): \(r.stdout) \(r.stderr)", file: file, line: line)
            return r.stdout
        }
        XCTAssertEqual(try rederive(["import", "Fixtures/corrupt", "--quiet"]).status, 3, file: file, line: line)
        XCTAssertTrue(try check([], 5, "14 open failures").hasPrefix("14 open failures"), file: file, line: line)
        // Thresholds: up to N tolerated.
        _ = try check(["--max-open-failures", "14"], 0, "14 tolerated")
        XCTAssertTrue(
            try check(["--max-open-failures", "13"], 5, "13 tolerated").contains("more than 13"), file: file, line: line
        )
        _ = try check(["--max-stale", "5", "--max-failed-ranges", "0"], 5, "stale tolerated, failures not")

        // Acknowledging needs a selection.
        let all = try rederive(["failures", "--ack"])
        XCTAssertEqual(all.status, 1, file: file, line: line)
        XCTAssertTrue(all.stderr.contains("--ack needs --id, --file, --code"), all.stderr, file: file, line: line)
        let byFile = try rederive(["failures", "--ack", "--file", "corrupt-records.jsonl"])
        XCTAssertEqual(byFile.stdout, "acknowledged 13 failures\n", byFile.stderr, file: file, line: line)
        let left = try check(["--within", "24h"], 5, "one left")
        XCTAssertTrue(left.hasPrefix("1 open failure (read/truncated_frame 1)"), left, file: file, line: line)
        XCTAssertTrue(left.contains("13 acknowledged not counted"), left, file: file, line: line)
        XCTAssertEqual(
            try rederive(["failures", "--ack", "--code", "truncated_frame"]).stdout, "acknowledged 1 failure\n",
            file: file, line: line)
        XCTAssertEqual(try check([], 0, "all acknowledged"), "ok\n", file: file, line: line)
        let json = try rederive(["status", "--check", "--json"])
        XCTAssertEqual(json.status, 0, file: file, line: line)
        XCTAssertEqual(
            (try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])?["ok"] as? Bool, true,
            file: file, line: line)

        // status and failures show what is acknowledged.
        let text = try rederive(["status"])
        XCTAssertTrue(text.stdout.contains("open failures  14 (14 acknowledged"), text.stdout, file: file, line: line)
        let statusJSON = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: rederive(["status", "--json"]).stdoutData) as? [String: Any])
        let failures = try XCTUnwrap(statusJSON["failures"] as? [String: Any])
        XCTAssertEqual(failures["open"] as? Int, 14, file: file, line: line)
        XCTAssertEqual(failures["acknowledged"] as? Int, 14, file: file, line: line)
        XCTAssertTrue(
            try rederive(["failures"]).stdout.hasSuffix("14 open failures (14 acknowledged)\n"), file: file, line: line)
        XCTAssertEqual(
            try rederive(["failures", "--unacknowledged"]).stdout, "no open failures\n", file: file, line: line)
        let one = try rederive(["failures", "--acknowledged", "--id", "8D43D369-68DD-4213-8F7E-6F17A8B02936", "--json"])
        let listed = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: one.stdoutData) as? [String: Any])?["failures"] as? [[String: Any]])
        XCTAssertEqual(listed.count, 1, one.stdout, file: file, line: line)
        XCTAssertNotNil(listed.first?["acknowledgedAt"] as? String, one.stdout, file: file, line: line)

        // Taking one back makes the check fail again.
        let back = try rederive(["failures", "--unack", "--code", "negative_dimension"])
        XCTAssertEqual(back.stdout, "took back 1 acknowledgement\n", back.stderr, file: file, line: line)
        XCTAssertTrue(
            try check([], 5, "one taken back").hasPrefix("1 open failure (decode/negative_dimension 1)"),
            file: file, line: line)
        XCTAssertEqual(
            try rederive(["failures", "--ack", "--stage", "decode", "--code", "negative_dimension"]).stdout,
            "acknowledged 1 failure\n", file: file, line: line)
        _ = try check([], 0, "acknowledged again")

        // A failure seen again from scratch (another first sighting) is no longer covered;
        // --within leaves out what was first seen before the window.
        try execute("UPDATE failure SET first_seen_at = '2020-01-01T00:00:00Z'")
        XCTAssertTrue(try check([], 5, "aged").hasPrefix("14 open failures"), file: file, line: line)
        XCTAssertEqual(try check(["--within", "24h"], 0, "old failures outside the window"), "ok\n")
        _ = try check(["--within", "100000d"], 5, "a window that reaches them")
        let all2 = try rederive(["failures", "--unack"])
        XCTAssertEqual(all2.status, 0, file: file, line: line)
        XCTAssertEqual(all2.stdout, "took back 0 acknowledgements\n", all2.stderr, file: file, line: line)
    }

    func testCheckClearsAfterAcknowledgement() throws {
        let db = dir.file("rooms.sqlite")
        try Self.scenario(db: db, scratch: dir) { try StoreInspection.execute(db, $0) }
    }

    func testCheckOptionsAreValidated() throws {
        let db = dir.file("rooms.sqlite")
        XCTAssertEqual(
            try CommandLineTool.invoke(["import", "Fixtures/exports", "--db", db, "-q"], scratch: dir).status, 0)
        for (arguments, message) in [
            (["--check", "--within", "24x"], "--within 24x: not a duration"),
            (["--check", "--within=-1h"], "not a duration"),
            (["--max-stale", "3"], "need --check"),
            (["--check", "--max-open-failures=-1"], "--max-open-failures must not be negative"),
        ] {
            let r = try CommandLineTool.invoke(["status", "--db", db] + arguments, scratch: dir)
            XCTAssertEqual(r.status, 1, "\(arguments)")
            XCTAssertTrue(r.stderr.contains(message), "\(arguments): \(r.stderr)")
        }
        let both = try CommandLineTool.invoke(
            ["failures", "--db", db, "--ack", "--unack", "--code", "x"], scratch: dir)
        XCTAssertEqual(both.status, 1)
        XCTAssertTrue(both.stderr.contains("exclude each other"), both.stderr)
    }

    func testWindows() {
        XCTAssertEqual(StoreStatus.CheckPolicy.seconds(ofWindow: "24h"), 86_400)
        XCTAssertEqual(StoreStatus.CheckPolicy.seconds(ofWindow: "30m"), 1_800)
        XCTAssertEqual(StoreStatus.CheckPolicy.seconds(ofWindow: "7d"), 604_800)
        XCTAssertEqual(StoreStatus.CheckPolicy.seconds(ofWindow: "90s"), 90)
        for bad in ["", "h", "24", "0h", "-1h", "1e3h", "nanh", "24 h"] {
            XCTAssertNil(StoreStatus.CheckPolicy.seconds(ofWindow: bad), bad)
        }
    }

    /// docs/scheduling.md "A check that clears" runs as written in a scratch clone: it fails
    /// (5) with open failures and clears (0) once the operator acknowledges them.
    func testSchedulingMonitoringExampleRunsAsWritten() throws {
        let root = RoomFixtures.repoRoot
        let page = try String(contentsOf: root.appendingPathComponent("docs/scheduling.md"), encoding: .utf8)
        let examples = ReadmeExamplesTests.examples(in: page, section: "## A check that clears")
        XCTAssertGreaterThanOrEqual(examples.count, 6)
        XCTAssertTrue(examples.contains { $0.line.contains("--check") && $0.status == 5 })
        XCTAssertTrue(examples.contains { $0.line.contains("--check") && $0.status == 0 })
        let bin = dir.file("bin"), work = dir.file("clone")
        let fm = FileManager.default
        try fm.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: work, withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: bin + "/rederive", withDestinationPath: try CommandLineTool.executable())
        try fm.createSymbolicLink(
            atPath: work + "/Fixtures", withDestinationPath: root.appendingPathComponent("Fixtures").path)
        var cleared = false
        for (line, expected) in examples {
            let r = try CommandLineTool.invoke(
                ["-c", line], executable: "/bin/sh",
                environment: ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")],
                directory: URL(fileURLWithPath: work), scratch: dir)
            XCTAssertEqual(r.status, expected, "docs/scheduling.md example `\(line)`: \(r.stdout) \(r.stderr)")
            if line.contains("--check") && expected == 0 {
                XCTAssertEqual(r.stdout, "ok\n", line)
                cleared = true
            }
        }
        XCTAssertTrue(cleared, "the example shows the check clearing")
    }
}
