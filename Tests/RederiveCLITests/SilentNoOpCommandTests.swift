import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Commands that did less than asked say so, and exit 3: ids not found, a retry of failures
/// only a re-import can retry, an export that left stale records out.
final class SilentNoOpCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var db: String!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        db = dir.file("rooms.sqlite")
        // The corrupt fixtures: every failure is of a record never stored, or of a file.
        XCTAssertEqual(try rederive(["import", "Fixtures/corrupt", "--db", db, "--quiet"]).status, 3)
    }

    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    func testIdsNotFoundAreNamed() throws {
        let known = try XCTUnwrap(try StoreInspection.rows(db, "SELECT id FROM record LIMIT 1").first?["id"] as String?)
        let r = try rederive(["derive", "--db", db, "--all", "--ids", "nope,\(known)", "--json"])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("1 of 2 ids not found in \(db!): nope"), r.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        XCTAssertEqual((json["warnings"] as? [String])?.count, 1)
        XCTAssertEqual(try rederive(["derive", "--db", db, "--all", "--ids", known, "--quiet"]).status, 0)
    }

    func testRetryFailedWithOnlyImportFailuresSaysToReimport() throws {
        let r = try rederive(["derive", "--db", db, "--retry-failed"])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("0 read"), r.stderr)
        XCTAssertTrue(r.stderr.contains("nothing to retry: the 13 open failures are of records never stored"), r.stderr)
        XCTAssertTrue(r.stderr.contains("Fixtures/corrupt/corrupt-records.jsonl (12)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("Fixtures/corrupt/truncated.jsonl.zst (1)"), r.stderr)
    }

    func testExportOfStaleSummariesWarnsAndExitsThree() throws {
        try StoreInspection.execute(db, "UPDATE summary SET summary_version = 0", [])
        let out = dir.file("s.jsonl")
        let r = try rederive(["export", "--db", db, "-o", out])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("left out of \(out) (13 with a stale summary"), r.stderr)
        XCTAssertTrue(r.stderr.contains("rederive derive"), r.stderr)
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "")
        XCTAssertEqual(try rederive(["export", "--db", db, "-o", out, "--all-records", "--quiet"]).status, 0)
        XCTAssertEqual(try rederive(["derive", "--db", db, "--quiet"]).status, 0)
        XCTAssertEqual(try rederive(["export", "--db", db, "-o", out, "--quiet"]).status, 0)
    }
}
