import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `derive --max-changes` and `--ids` are typed values parsed once by the argument parser
/// (issue 32): a bad value is a usage error (exit 1) naming the option, the value and what a
/// good one looks like, before any store is opened; good values select as before.
final class TypedOptionCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    func testBadValuesNameTheOptionTheValueAndWhatIsExpected() throws {
        let db = dir.file("never-opened.sqlite")
        let cases: [(option: String, value: String, expected: String)] = [
            ("--max-changes", "5x", "expected a whole number or a percentage, e.g. 500 or 2%"),
            ("--max-changes", "-1", "expected a whole number or a percentage, e.g. 500 or 2%"),
            ("--max-changes", "101%", "expected a whole number or a percentage, e.g. 500 or 2%"),
            ("--ids", " , ,", "expected comma-separated record ids"),
            ("--ids", "  ", "expected comma-separated record ids"),
        ]
        for (option, value, expected) in cases {
            let r = try rederive(["derive", "--db", db, "\(option)=\(value)"])
            XCTAssertEqual(r.status, 1, "\(option) \(value): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("The value '\(value)' is invalid for '\(option) <"), r.stderr)
            XCTAssertTrue(r.stderr.contains(expected), "\(option) \(value): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: db), "\(option) \(value) opened the store")
        }
    }

    func testGoodValuesSelectAsBefore() throws {
        let db = dir.file("rooms.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/exports/rooms-v2.jsonl", "--db", db, "--quiet"]).status, 0)
        let ids = try StoreInspection.rows(db, "SELECT id FROM record ORDER BY id LIMIT 2").map { $0["id"] as String? }
        let (a, b) = (try XCTUnwrap(ids.first ?? nil), try XCTUnwrap(ids.last ?? nil))
        // Spaces and empty items around the ids are dropped; only the two named records are examined.
        let r = try rederive([
            "derive", "--db", db, "--all", "--dry-run", "--preview-out", dir.file("p"), "--ids", " \(a), ,\(b) ",
            "--max-changes", "100%", "--json",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        XCTAssertEqual((report["totals"] as? [String: Any])?["examined"] as? Int, 2, r.stdout)
    }
}
