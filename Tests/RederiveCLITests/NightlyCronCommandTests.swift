import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// The nightly as docs/scheduling.md schedules it (issue 36 #3, #4, #5): its cron line, run as
/// written under `env -i`, says why it exited 3 even with `--quiet` (both log formats); one
/// garbage upload costs only its own records (the night's good records are derived and
/// exported); the reports and the metrics file land beside the store, only when a stage had
/// issues, and `keep-reports` prunes the old ones.
final class NightlyCronCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private var fixtures: URL { RoomFixtures.repoRoot.appendingPathComponent("Fixtures") }

    /// The first cron line of docs/scheduling.md without its schedule, with the checkout, the
    /// binary, the lock and `/data` put where this test keeps them.
    private func cronLine(data: String) throws -> String {
        let doc = try String(
            contentsOf: RoomFixtures.repoRoot.appendingPathComponent("docs/scheduling.md"), encoding: .utf8)
        let line = try XCTUnwrap(doc.split(separator: "\n").first { $0.hasPrefix("15 2 * * *") }, "no cron line")
        let command = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)[5]
        XCTAssertTrue(command.contains("--quiet"), "the documented line is quiet: \(command)")
        return
            command
            .replacingOccurrences(of: "/opt/rederive", with: RoomFixtures.repoRoot.path)
            .replacingOccurrences(of: ".build/release/rederive", with: try CommandLineTool.executable())
            .replacingOccurrences(of: "/tmp/rederive.lock", with: dir.file("rederive.lock"))
            .replacingOccurrences(of: "/data", with: data)
    }

    /// Runs `line` under `env -i` (cron's bare environment) with `sh`.
    private func cron(_ line: String) throws -> CommandLineResult {
        try CommandLineTool.invoke(
            ["-i", "PATH=/usr/bin:/bin", "/bin/sh", "-c", line], executable: "/usr/bin/env", scratch: dir)
    }

    /// Fills `data/incoming` with a good export, one with corrupt lines, and 50 kB of random bytes.
    private func night(_ data: String) throws {
        let incoming = data + "/incoming"
        try FileManager.default.createDirectory(atPath: incoming, withIntermediateDirectories: true)
        for file in ["exports/rooms-v1.jsonl.zst", "corrupt/corrupt-records.jsonl"] {
            try FileManager.default.copyItem(
                atPath: fixtures.appendingPathComponent(file).path,
                toPath: incoming + "/" + (file as NSString).lastPathComponent)
        }
        var random = SystemRandomNumberGenerator()
        try Data((0..<50_000).map { _ in UInt8.random(in: 0...255, using: &random) })
            .write(to: URL(fileURLWithPath: incoming + "/zz-garbage.jsonl.zst"))
    }

    func testTheQuietCronLineSaysWhyAndAGarbageUploadCostsOnlyItsRecords() throws {
        for format in ["json", "human"] {
            let data = dir.file("data-\(format)")
            try night(data)
            var line = try cronLine(data: data)
            if format == "human" { line = line.replacingOccurrences(of: " --log-format json", with: "") }
            let r = try cron(line)
            XCTAssertEqual(r.status, 0, "exit 3 is a success for the cron line: \(r.stdout) \(r.stderr)")
            XCTAssertEqual(r.stdout, "", "no failure echoed")
            let lines = r.stderr.split(separator: "\n").map(String.init)
            let reason = try XCTUnwrap(lines.first { $0.contains("pipeline nightly: exit 3") }, r.stderr)
            XCTAssertTrue(reason.contains("import (run 1): exit 3"), reason)
            XCTAssertTrue(reason.contains("file fault"), reason)
            if format == "json" {
                let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(reason.utf8)) as? [String: Any])
                XCTAssertEqual(object["level"] as? String, "warning")
            } else {
                XCTAssertTrue(reason.contains(" warning "), reason)
            }
            XCTAssertFalse(r.stderr.contains("error budget"), r.stderr)

            // The garbage cost only itself: the good records were derived and exported.
            let db = data + "/rooms.sqlite"
            let stored = try StoreInspection.int(db, "SELECT COUNT(*) FROM summary")
            XCTAssertGreaterThan(stored, 0)
            let exported = data + "/summaries.jsonl.zst"
            XCTAssertTrue(FileManager.default.fileExists(atPath: exported), "the export stage ran")
            let faults = try StoreInspection.int(db, "SELECT COUNT(*) FROM faulted_file")
            XCTAssertEqual(faults, 1, "the garbage is a file fault, skipped by content hash from now on")

            // Reports and metrics beside the store, only for the stage with issues.
            let reports = try FileManager.default.contentsOfDirectory(atPath: data + "/reports").sorted()
            XCTAssertEqual(reports.count, 2, "\(reports)")
            XCTAssertTrue(reports.contains("nightly.prom"), "\(reports)")
            XCTAssertTrue(
                reports.contains { $0.hasPrefix("nightly-import-issues-") && $0.hasSuffix("-run1.jsonl") },
                "\(reports)")
        }
    }

    func testKeepReportsPrunesOldReportsAndACleanStageWritesNone() throws {
        let corrupt = fixtures.appendingPathComponent("corrupt/corrupt-records.jsonl").path
        let file = try dir.write(
            """
            version: 1
            name: keep
            store: data/k.sqlite
            create-dirs: true
            reports-dir: r
            keep-reports: 2
            stages:
              - import: { paths: [\(corrupt)] }
              - derive: {}
            """, to: "keep.yml")
        for _ in 1...3 {
            let r = try CommandLineTool.invoke(["run", file, "--quiet"], scratch: dir)
            XCTAssertEqual(r.status, 3, r.stderr)
        }
        let folder = dir.file("data/r")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        let reports = names.filter { $0.hasPrefix("keep-import-issues-") }
        XCTAssertEqual(reports.count, 2, "\(names)")
        // The two newest are kept: the first night's import (run 1) is gone.
        let runs = reports.compactMap { Int($0.split(separator: "-run").last?.dropLast(".jsonl".count) ?? "") }
        XCTAssertEqual(runs.count, 2, "\(names)")
        XCTAssertGreaterThan(runs.min() ?? 0, 1, "\(names)")
        XCTAssertFalse(names.contains { $0.hasPrefix("keep-derive-issues-") }, "no empty report: \(names)")
        XCTAssertTrue(names.contains("keep.prom"), "\(names)")
    }
}
