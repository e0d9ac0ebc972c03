import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport

/// The `rederive` executable as users and cron see it: exit statuses, outputs, help.
final class CommandLineTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    /// Runs the tool from the repository root; returns status, stdout and stderr.
    private func rederive(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CommandLineTool.executable())
        process.arguments = arguments
        process.currentDirectoryURL = RoomFixtures.repoRoot
        let out = dir.file("stdout-\(UUID().uuidString)"), err = dir.file("stderr-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: out, contents: nil)
        FileManager.default.createFile(atPath: err, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
            (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        )
    }

    func testSummarizeFixturesSkipsEveryCorruptRecordAndExits3() throws {
        let report = dir.file("report.jsonl")
        let r = try rederive(["summarize", "Fixtures", "--report", report, "--workers", "2"])
        XCTAssertEqual(r.status, 3, r.stderr)
        let summaries = r.stdout.split(separator: "\n")
        XCTAssertEqual(summaries.count, 45, "every good record summarized")
        for line in summaries {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertEqual(Set(object.keys), ["id", "roomName", "file", "line", "summaryVersion", "summary"])
        }
        let issues = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let codes = issues.map { "\($0["line"] is NSNull ? "-" : "\($0["line"]!)"):\($0["code"]!)" }
        XCTAssertEqual(
            codes,
            [
                "1:invalid_json", "3:invalid_utf8", "4:not_an_object", "5:missing_key", "8:missing_key", "9:wrong_type",
                "10:invalid_base64", "12:invalid_room_json", "14:non_finite_number", "16:bad_transform",
                "17:negative_dimension", "18:unsupported_format_version", "20:duplicate_id", "-:truncated_frame",
            ], "one issue per corrupt kind, sorted by file then line")
        XCTAssertTrue(r.stderr.contains("summarize: 58 read, 45 summarized, 13 skipped, 1 file fault"), r.stderr)
    }

    func testSummarizeGoodRecordsOnlyExits0() throws {
        let out = dir.file("s.jsonl.zst")
        let r = try rederive(["summarize", "Fixtures/exports", "--out", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "")
        let reader = try ExportReader(path: out)
        var n = 0
        while reader.nextLine() != nil { n += 1 }
        XCTAssertEqual(n, 32)
    }

    func testUsageErrorsExit1() throws {
        XCTAssertEqual(try rederive(["summarize", "data.json"]).status, 1)
        XCTAssertEqual(try rederive(["derive", "--no-such-flag", "--db", dir.file("x.sqlite")]).status, 1)
        XCTAssertEqual(try rederive(["derive", "--db", dir.file("x.sqlite"), "--all", "--retry-failed"]).status, 1)
        XCTAssertEqual(try rederive(["run", dir.file("missing.yml")]).status, 1)
        XCTAssertEqual(try rederive(["derive", "--db", dir.file("typo.sqlite")]).status, 1)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: dir.file("typo.sqlite")), "a mistyped store is not created")
        XCTAssertEqual(try rederive(["run", "Pipelines/backfill.yml", "--db", dir.file("typo2.sqlite")]).status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("typo2.sqlite")))
        let bad = dir.file("bad.yml")
        try "version: 1\nstore: x.sqlite\nstages:\n  - derive: { al: true }\n".write(
            toFile: bad, atomically: true, encoding: .utf8)
        let r = try rederive(["run", bad])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("bad.yml:4"), r.stderr)
        XCTAssertTrue(r.stderr.contains("unknown key \"al\""), r.stderr)
    }

    // `run` shares the batch flags (and their rules) with import and derive.
    func testRunAppliesTheSameFlagRulesAsImport() throws {
        for command in [["import", "Fixtures/exports", "--db", dir.file("a.sqlite")], ["run", "Pipelines/demo.yml"]] {
            let r = try rederive(command + ["--max-errors=-5"])
            XCTAssertEqual(r.status, 1, "\(command): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--max-errors must not be negative"), r.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("a.sqlite")))
    }

    func testImportJSONSummaryAndRerunChangesNothing() throws {
        let db = dir.file("rooms.sqlite")
        let first = try rederive(["import", "Fixtures/exports", "--db", db, "--json", "--quiet"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((summary["counts"] as? [String: Any])?["imported"] as? Int, 32)
        for key in [
            "runId", "command", "status", "exitStatus", "counts", "summaryVersion", "fingerprint", "durationSeconds",
            "recordsPerSecond",
        ] {
            XCTAssertNotNil(summary[key], key)
        }
        XCTAssertEqual(first.stderr, "", "--quiet: no tally")
        let second = try rederive(["import", "Fixtures/exports", "--db", db, "--json", "--log-format", "json"])
        XCTAssertEqual(second.status, 0)
        let again = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((again["counts"] as? [String: Any])?["unchanged"] as? Int, 32)
        // JSON logs: every stderr line is one JSON object with a level and a message.
        for line in second.stderr.split(separator: "\n") {
            let log = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertNotNil(log["level"])
            XCTAssertNotNil(log["message"])
        }
        XCTAssertFalse(second.stderr.contains("ETA"), "no progress line when stderr is not a terminal")
    }

    func testNewerStoreIsRefusedWithExit2() throws {
        let db = dir.file("rooms.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/exports/rooms-v2.jsonl", "--db", db, "--quiet"]).status, 0)
        // Mark the store as written by a future schema, through GRDB rather than a CLI.
        do {
            let store = try SQLiteStore(path: db)
            try store.pool.write {
                try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')")
            }
            store.close()
        }
        let before = FileManager.default.contents(atPath: db)
        let r = try rederive(["derive", "--db", db])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("newer rederive"), r.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: db), before)
    }

    func testEveryCommandsHelpShowsAnExample() throws {
        for command in ["run", "import", "derive", "summarize", "status", "export", "generate"] {
            let r = try rederive([command, "--help"])
            XCTAssertEqual(r.status, 0, command)
            XCTAssertTrue(r.stdout.lowercased().contains("example"), "\(command) --help has no example")
            XCTAssertTrue(r.stdout.contains("rederive \(command)"), "\(command) --help example uses the command")
        }
        let top = try rederive(["--help"])
        for code in ["130", "143", "4 ", "3 ", "2 ", "1 "] {
            XCTAssertTrue(top.stdout.contains(code), "exit code \(code) documented")
        }
    }

    func testMetricsFileFromTheCommandLine() throws {
        let db = dir.file("rooms.sqlite"), metrics = dir.file("m/run.prom")
        let r = try rederive(["import", "Fixtures/exports", "--db", db, "--metrics-file", metrics, "--quiet"])
        XCTAssertEqual(r.status, 0)
        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        XCTAssertTrue(
            text.contains(
                "rederive_records{pipeline=\"\",stage=\"import\",command=\"import\",outcome=\"imported\"} 32"), text)
    }
}
