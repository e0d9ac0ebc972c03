import Foundation
import XCTest
@testable import RederiveCore

/// What one small hostile export can cost is bounded (issue 22): a default error budget
/// stops a file of bad lines before it writes gigabytes of report and failure ledger (F18).
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

    func testATinyFileOfBadLinesStopsAtTheDefaultErrorBudget() throws {
        let input = try ones(500_000)
        XCTAssertLessThan(try FileManager.default.attributesOfItem(atPath: input)[.size] as? Int ?? .max, 1_000)
        let db = dir.file("s.sqlite"), report = dir.file("r.jsonl")
        let r = try rederive(["import", input, "--db", db, "--report", report])
        XCTAssertEqual(r.status, ExitStatus.errorBudget, r.stderr)
        XCTAssertTrue(r.stderr.contains("max-errors \(RunSettings.defaultMaxErrors)"), r.stderr)
        // Stopped after the batch that crossed the budget: not 500,000 lines.
        let reported = try lines(report)
        XCTAssertGreaterThan(reported, RunSettings.defaultMaxErrors)
        XCTAssertLessThan(reported, 2 * RunSettings.defaultMaxErrors)
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
        XCTAssertEqual(r.status, ExitStatus.skippedRecords, r.stderr)
        XCTAssertEqual(try lines(report), RunSettings.defaultMaxErrors + 1_500)
    }
}
