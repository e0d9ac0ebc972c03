import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// What one small hostile export can cost is bounded (issue 22): a default error budget
/// stops a file of bad lines before it writes gigabytes of report and failure ledger (F18);
/// a preview keeps per-record text cut short, whatever the size of a room name (F17).
final class ResourceBoundsCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    /// `count` lines of `1` (each a record that is not an object), zstd-compressed.
    private func ones(_ count: Int) throws -> String {
        let path = dir.file("ones-\(count).jsonl.zst")
        try ExportFixtures.write(Array(String(repeating: "1\n", count: count).utf8), to: path)
        return path
    }

    private func lines(_ path: String) throws -> Int {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count
    }

    /// `r` stopped with exit 4 at the default budget, after the batch that crossed it: its
    /// report holds just over 10,000 lines, not the whole file's.
    private func assertStoppedAtTheDefaultBudget(
        _ r: CommandLineResult, report: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(r.status, ExitStatus.errorBudget.rawValue, r.stderr, file: file, line: line)
        XCTAssertTrue(r.stderr.contains("max-errors \(RunSettings.defaultMaxErrors)"), r.stderr, file: file, line: line)
        let reported = try lines(report)
        XCTAssertGreaterThan(reported, RunSettings.defaultMaxErrors, file: file, line: line)
        XCTAssertLessThan(reported, 2 * RunSettings.defaultMaxErrors, file: file, line: line)
    }

    func testATinyFileOfBadLinesStopsAtTheDefaultErrorBudget() throws {
        let input = try ones(500_000)
        XCTAssertLessThan(try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int ?? .max, 1_000)
        let db = dir.file("s.sqlite"), report = dir.file("r.jsonl")
        try assertStoppedAtTheDefaultBudget(
            try rederive(["import", input, "--db", db, "--report", report]), report: report)
        let ledger = try StoreInspection.int(db, "SELECT COUNT(*) FROM failure")
        XCTAssertGreaterThan(ledger, RunSettings.defaultMaxErrors)
        XCTAssertLessThan(ledger, 2 * RunSettings.defaultMaxErrors)
    }

    func testALargerMaxErrorsLiftsTheDefaultBudget() throws {
        let input = try ones(RunSettings.defaultMaxErrors + 1_500)
        let report = dir.file("r.jsonl")
        let r = try rederive([
            "import", input, "--db", dir.file("s.sqlite"), "--report", report, "--quiet",
            "--max-errors", "1000000",
        ])
        XCTAssertEqual(r.status, ExitStatus.skippedRecords.rawValue, r.stderr)
        XCTAssertEqual(try lines(report), RunSettings.defaultMaxErrors + 1_500)
    }

    /// `summarize` has the same budget: the review's kind of file (a few hundred bytes of
    /// zstd) wrote a 41 MB report through it, with no way to stop it.
    func testSummarizeStopsAtTheDefaultErrorBudgetAndLeavesNothingAtOut() throws {
        let input = try ones(500_000)
        let report = dir.file("r.jsonl"), out = dir.file("s.jsonl")
        try assertStoppedAtTheDefaultBudget(
            try rederive(["summarize", input, "-o", out, "--report", report]), report: report)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "an aborted summarize leaves no output")
    }

    func testSummarizeTakesMaxErrorsAndMaxErrorRate() throws {
        let input = try ones(RunSettings.defaultMaxErrors + 1_500)
        let report = dir.file("r.jsonl")
        let lifted = try rederive([
            "summarize", input, "-o", dir.file("s.jsonl"), "--report", report, "--quiet", "--max-errors", "1000000",
        ])
        XCTAssertEqual(lifted.status, ExitStatus.skippedRecords.rawValue, lifted.stderr)
        XCTAssertEqual(try lines(report), RunSettings.defaultMaxErrors + 1_500)
        let rate = try rederive(["summarize", input, "-o", dir.file("t.jsonl"), "--max-error-rate", "0.5", "--quiet"])
        XCTAssertEqual(rate.status, ExitStatus.errorBudget.rawValue, rate.stderr)
        let wrong = try rederive(["summarize", input, "--max-error-rate", "2"])
        XCTAssertEqual(wrong.status, ExitStatus.usage.rawValue, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("max-error-rate must be between 0 and 1"), wrong.stderr)
    }

    func testAPreviewShowsAMegabyteRoomNameCut() throws {
        let name = String(repeating: "N", count: 1 << 20)
        let room = try JSONSerialization.jsonObject(with: Data(try ExportFixtures.compactRoom("Kitchen")))
        let input = dir.file("long-name.jsonl")
        try ExportFixtures.write(
            lines: [
                try ExportFixtures.line([
                    "formatVersion": 3, "id": "00000000-0000-0000-0000-0000000000AA", "roomName": name,
                    "capturedAt": "2026-02-10T09:15:00Z", "room": room,
                ])
            ], to: input)
        let db = dir.file("s.sqlite")
        XCTAssertEqual(try rederive(["import", input, "--db", db, "--quiet"]).status, 0)
        try StoreInspection.execute(db, "DELETE FROM summary")  // never derived: listed by name
        let preview = dir.file("preview")
        let r = try rederive(["derive", "--db", db, "--dry-run", "--preview-out", preview, "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let cut = String(repeating: "N", count: PreviewText.limit) + PreviewText.marker
        for file in ChangeReport.renderers.map(\.fileName) {
            let text = try String(contentsOfFile: preview + "/" + file, encoding: .utf8)
            XCTAssertTrue(text.contains(cut), "\(file) lists the name cut with a marker")
            XCTAssertFalse(text.contains(cut.dropLast() + "N"), "\(file) holds more of the name")
            XCTAssertLessThan(text.utf8.count, 200_000, file)
        }
        // The record itself keeps its whole name.
        let shown = try rederive(["show", "00000000-0000-0000-0000-0000000000AA", "--db", db, "--json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: shown.stdoutData) as? [String: Any])
        XCTAssertEqual(object["roomName"] as? String, name)
    }
}
