import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Commands check what they will write before touching the store, and stop cleanly.
final class OutputSafetyCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    func testUnwritableOutputsStopBeforeTheStoreIsTouched() throws {
        let aFile = dir.file("plain-file")
        try "x".write(toFile: aFile, atomically: true, encoding: .utf8)
        let db = dir.file("new.sqlite")
        for bad in [
            ["--report", aFile + "/issues.jsonl"], ["--report", dir.path], ["--metrics-file", aFile + "/m.prom"],
        ] {
            let r = try rederive(["import", "Fixtures/exports", "--db", db] + bad)
            XCTAssertEqual(r.status, 1, "\(bad): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: db), "\(bad): no store created")
        }

        let existing = dir.file("rooms.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/exports", "--db", existing, "-q"]).status, 0)
        let before = StoreInspection.fileBytes(existing)
        for command in [
            ["derive", "--db", existing, "--all", "--report", aFile + "/r.jsonl"],
            ["derive", "--db", existing, "--all", "--metrics-file", dir.path],
            ["export", "--db", existing, "-o", aFile + "/o.jsonl"],
            ["derive", "--db", existing, "--dry-run", "--preview-out", aFile],
        ] {
            let r = try rederive(command)
            XCTAssertEqual(r.status, 1, "\(command): \(r.stderr)")
            XCTAssertTrue(
                r.stderr.contains("nothing was done") || r.stderr.contains("not a folder")
                    || r.stderr.contains("is a directory") || r.stderr.contains("is a file"), r.stderr)
        }
        XCTAssertEqual(StoreInspection.fileBytes(existing), before, "the store was not touched")

        let pipeline = dir.file("p.yml")
        try """
        version: 1
        stages:
          - import: { paths: [\(RoomFixtures.repoRoot.path)/Fixtures/exports] }
          - export: { out: \(aFile)/out.jsonl }
        """.write(toFile: pipeline, atomically: true, encoding: .utf8)
        let run = try rederive(["run", pipeline, "--db", db])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: db), "a later stage's bad output stops the pipeline first")
    }

    func testSummarizeStopsCleanlyOnSIGTERM() throws {
        let export = dir.file("big.jsonl")
        try ExportFixtures.writeLargeExport(records: 12000, seed: 9, to: export)
        let out = dir.file("summaries.jsonl"), report = dir.file("issues.jsonl")
        let child = try CommandLineTool.Child(
            ["summarize", export, "--workers", "1", "-o", out, "--report", report],
            stderrPath: dir.file("summarize.err"))
        // Wait until it is writing, then ask it to stop.
        for _ in 0..<2000 where child.isRunning {
            let size = (try? FileManager.default.attributesOfItem(atPath: out + ".partial")[.size] as? Int) ?? 0
            if size > 0 { break }
            usleep(2_000)
        }
        child.signal(SIGTERM)
        let (status, signaled) = child.wait()
        XCTAssertFalse(signaled, "handled, not killed by the signal")
        XCTAssertEqual(status, 143, child.stderr)
        XCTAssertTrue(child.stderr.contains("interrupted: SIGTERM"), child.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "no partial output put in place")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + ".partial"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: report + ".partial"))
    }
}
