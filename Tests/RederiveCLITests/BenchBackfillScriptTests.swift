import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `.ci/bench-backfill`, which `make bench` and `.ci/bench-postgres` run (issue 36: "make bench
/// prints the preview and plan-check lines against the derive line"): on a stale store it times
/// derive --all, the dry run with --plan, the apply of that plan, and revert --dry-run against
/// the revert of that apply, printing each preview and the check against the write it guards.
/// Speed is the benchmark's to show; this checks the lines and that the commands did their work.
final class BenchBackfillScriptTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    func testItPrintsThePreviewsAndTheCheckAgainstTheirWrites() throws {
        let db = dir.file("rooms.sqlite")
        XCTAssertEqual(
            try CommandLineTool.invoke(["import", "Fixtures/exports", "--db", db, "-q"], scratch: dir).status, 0)
        let n = try StoreInspection.int(db, "SELECT COUNT(*) FROM summary")
        let r = try CommandLineTool.invoke(
            [CommandLineTool.executable(), db, dir.file("bench"), "sqlite", "2"],
            executable: RoomFixtures.repoRoot.appendingPathComponent(".ci/bench-backfill").path, scratch: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let expected: [(String, String)] = [
            ("sqlite derive --all (stale)", "median of 2"),
            ("sqlite dry run with --plan", "x the derive; target 1.5x"),
            ("sqlite apply-plan", "x the derive: the check adds "),
            ("sqlite revert --dry-run", "x the revert; target 1.5x"),
            ("sqlite revert", "undoes the apply above"),
        ]
        XCTAssertEqual(lines.count, expected.count, r.stdout)
        for (line, (label, text)) in zip(lines, expected) {
            XCTAssertTrue(line.hasPrefix(label + " "), "\(label): \(line)")
            XCTAssertTrue(line.contains(text), "\(label): \(line)")
            XCTAssertNotNil(line.range(of: #" [0-9]+\.[0-9]{2} s "#, options: .regularExpression), line)
        }
        // The plan covered every record, and the last revert put the stale summaries back.
        let plan =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: dir.file("bench/backfill-plan.json")))) as? [String: Any]
        XCTAssertEqual((plan?["counts"] as? [String: Any])?["rewrites"] as? Int, n)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM summary WHERE summary_version = 0"), n)
    }
}
