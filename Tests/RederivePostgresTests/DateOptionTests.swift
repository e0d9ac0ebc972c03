import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Dates and durations given as options are checked once, strictly, before a store is
/// touched (issue 22, F20/F21): `--since` and `history --prune --before` take only real
/// calendar dates and give the same answer on SQLite and PostgreSQL; `--wait` takes only a
/// finite number of seconds.
final class DateOptionTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    /// A SQLite store and a PostgreSQL store, each with the fixtures' exports imported.
    private func stores() throws -> [String] {
        let stores = [dir.file("rooms.sqlite"), try PostgresCluster.shared().newDatabase()]
        for db in stores {
            let r = try rederive(["import", "Fixtures/exports/rooms-v2.jsonl", "--db", db, "--quiet"])
            XCTAssertEqual(r.status, 0, "\(db): \(r.stderr)")
        }
        return stores
    }

    func testBadDatesAreUsageErrorsOnBothEngines() throws {
        for db in try stores() {
            for bad in ["2026-02-30", "0000-01-01", "2026-01-01' OR 1=1 --", "2026-1-01", "2026-01-01T25:00:00Z"] {
                for arguments in [
                    ["derive", "--db", db, "--dry-run", "--preview-out", dir.file("p"), "--since", bad],
                    ["history", "--db", db, "--prune", "--before", bad],
                ] {
                    let r = try rederive(arguments)
                    XCTAssertEqual(r.status, 1, "\(arguments): \(r.stderr)")
                    XCTAssertTrue(r.stderr.contains("expected an ISO 8601 date"), "\(arguments): \(r.stderr)")
                }
            }
        }
    }

    func testGoodDatesSelectTheSameOnBothEngines() throws {
        var examined: [[Int]] = []
        for db in try stores() {
            var counts: [Int] = []
            // An offset and a fraction are read as the instant they name.
            for since in ["2000-01-01", "2000-01-01T01:00:00.5+01:00", "9999-12-31", "2024-02-29T23:59:59Z"] {
                let r = try rederive([
                    "derive", "--db", db, "--dry-run", "--preview-out", dir.file("p"), "--all", "--since", since,
                    "--json",
                ])
                XCTAssertEqual(r.status, 0, "\(db) --since \(since): \(r.stderr)")
                let report = try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
                counts.append(try XCTUnwrap((report["totals"] as? [String: Any])?["examined"] as? Int, r.stdout))
            }
            let pruned = try rederive(["history", "--db", db, "--prune", "--before", "2000-01-01"])
            XCTAssertEqual(pruned.status, 0, "\(db): \(pruned.stderr)")
            examined.append(counts)
        }
        XCTAssertEqual(examined.first?.first, examined.first?[1])
        XCTAssertGreaterThan(examined.first?.first ?? 0, 0)
        XCTAssertEqual(examined.first?[2], 0)
        XCTAssertEqual(examined.first, examined.last, "SQLite and PostgreSQL select the same records")
    }

    func testWaitMustBeAFiniteNumberOfSeconds() throws {
        let db = dir.file("rooms.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/exports/rooms-v2.jsonl", "--db", db, "--quiet"]).status, 0)
        for bad in ["nan", "inf", "-1"] {
            let r = try rederive(["derive", "--db", db, "--wait", bad])
            XCTAssertEqual(r.status, 1, "--wait \(bad): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--wait must be a number of seconds, 0 or more"), r.stderr)
        }
        XCTAssertEqual(try rederive(["derive", "--db", db, "--wait", "0.5", "--quiet"]).status, 0)
    }
}
