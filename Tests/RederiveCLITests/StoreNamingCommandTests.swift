import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Names that cannot collide (review #9, #22, #29): what a pipeline file names for every
/// store (reports, metrics, previews, plans) carries the store's tag, so two stores run
/// through the same file keep their own files.
final class StoreNamingCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }

    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    private func tag(_ db: String) throws -> String {
        let id = try StoreInspection.rows(db, "SELECT value FROM store_info WHERE key = 'store_id'")
            .map { $0["value"] as String }
        return StoreNaming.tag(try XCTUnwrap(id.first))
    }

    private func write(_ name: String, _ text: String) throws -> String {
        try dir.write(text, to: "pipes/" + name)
    }

    /// A one-stage pipeline file `pipes/NAME.yml` whose store is `../out/a.sqlite`.
    private func pipeline(_ name: String, stage: String) throws -> String {
        try write(
            name + ".yml",
            """
            version: 1
            name: \(name)
            store: ../out/a.sqlite
            stages:
              - \(stage)
            """)
    }

    func testTwoStoresThroughOnePipelineKeepBothReportsMetricsAndPlans() throws {
        let corrupt = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/corrupt").path
        let nightly = try write(
            "n.yml",
            """
            version: 1
            name: n
            store: ../out/a.sqlite
            create-dirs: true
            metrics-file: ../out/n.prom
            stages:
              - import: { paths: [\(corrupt)], report: ../out/n-import-issues.jsonl }
            """)
        let (a, b) = (dir.file("out/a.sqlite"), dir.file("b.sqlite"))
        XCTAssertEqual(try rederive(["run", nightly, "-q"]).status, 3)
        XCTAssertEqual(try rederive(["run", nightly, "-q", "--db", b]).status, 3)
        let (tagA, tagB) = (try tag(a), try tag(b))
        XCTAssertNotEqual(tagA, tagB)
        for t in [tagA, tagB] {
            // Both stores' run 1 keeps its own report (14 issues each) and metrics file.
            let report = try String(contentsOfFile: dir.file("out/n-import-issues-\(t)-run1.jsonl"), encoding: .utf8)
            XCTAssertEqual(report.split(separator: "\n").count, 14, t)
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("out/n-\(t).prom")), t)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out/n-import-issues-run1.jsonl")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out/n.prom")))
        // A metrics file given on the command line is written as given.
        let given = dir.file("given.prom")
        XCTAssertEqual(try rederive(["run", nightly, "-q", "--db", b, "--metrics-file", given]).status, 3)
        XCTAssertTrue(FileManager.default.fileExists(atPath: given))

        // A backfill through one file: each store gets its own preview and plan, and applies its own.
        let plan = try pipeline(
            "plan", stage: "derive: { all: true, dry-run: true, preview-out: ../out/preview, plan: ../out/plan.json }")
        let apply = try pipeline("apply", stage: "derive: { apply-plan: ../out/plan.json }")
        for (db, t) in [(a, tagA), (b, tagB)] {
            XCTAssertEqual(try rederive(["run", plan, "-q", "--db", db]).status, 0)
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("out/plan-\(t).json")), t)
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("out/preview-\(t)/preview.md")), t)
        }
        for db in [a, b] {
            let r = try rederive(["run", apply, "--db", db])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("out/plan.json")))
    }

    /// `make backfill` previews the store its pipeline file names unless DB= is given.
    func testMakeBackfillUsesThePipelinesStoreUnlessDBIsGiven() throws {
        let root = RoomFixtures.repoRoot
        let plain = try CommandLineTool.invoke(
            ["-n", "backfill"], executable: "/usr/bin/make", directory: root, scratch: dir)
        XCTAssertTrue(plain.stdout.contains("rederive run Pipelines/backfill.yml  &&"), plain.stdout)
        XCTAssertFalse(plain.stdout.contains("nightly.sqlite"), plain.stdout)
        let given = try CommandLineTool.invoke(
            ["-n", "backfill", "DB=out/x.sqlite", "APPLY=1"], executable: "/usr/bin/make", directory: root, scratch: dir
        )
        XCTAssertTrue(
            given.stdout.contains("rederive run Pipelines/backfill-apply.yml --db out/x.sqlite"), given.stdout)
    }

    /// `make backfill` and `make nightly` given `REDERIVE=` run that binary and build nothing
    /// (issue 36 #9); without it they build the release binary first.
    func testWalkthroughTargetsBuildNothingWhenGivenABinary() throws {
        let root = RoomFixtures.repoRoot
        let binary = try CommandLineTool.executable()
        for target in [["backfill"], ["backfill", "APPLY=1"], ["nightly"]] {
            let given = try CommandLineTool.invoke(
                ["-n"] + target + ["REDERIVE=\(binary)"], executable: "/usr/bin/make", directory: root, scratch: dir)
            XCTAssertEqual(given.status, 0, given.stderr)
            XCTAssertFalse(given.stdout.contains("swift build"), "\(target): \(given.stdout)")
            XCTAssertTrue(given.stdout.contains("\(binary) run Pipelines/"), "\(target): \(given.stdout)")
            let plain = try CommandLineTool.invoke(
                ["-n"] + target, executable: "/usr/bin/make", directory: root, scratch: dir)
            XCTAssertTrue(plain.stdout.contains("swift build -c release"), "\(target): \(plain.stdout)")
        }
        let missing = try CommandLineTool.invoke(
            ["-s", "nightly", "REDERIVE=\(dir.file("nope"))"], executable: "/usr/bin/make", directory: root,
            scratch: dir)
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stdout.contains("is not an executable"), missing.stdout + missing.stderr)
    }

    func testNames() {
        let id = "1a2b3c4d5e6f"
        XCTAssertEqual(StoreNaming.path("out/backfill-plan.json", storeID: id), "out/backfill-plan-1a2b3c4d.json")
        XCTAssertEqual(StoreNaming.path("out/n.prom", storeID: id), "out/n-1a2b3c4d.prom")
        XCTAssertEqual(StoreNaming.path("out/preview/", storeID: id), "out/preview-1a2b3c4d")
        XCTAssertEqual(StoreNaming.path("out/x", storeID: ""), "out/x")
        XCTAssertEqual(StoreNaming.path("a.b/.json", storeID: id), "a.b/.json-1a2b3c4d")
        XCTAssertEqual(
            RunSettings.perRunReportPath("out/i.jsonl.zst", runID: 3, storeID: id), "out/i-1a2b3c4d-run3.jsonl.zst")
        XCTAssertEqual(RunSettings.perRunReportPath("out/i.jsonl", runID: 3), "out/i-run3.jsonl")
    }
}
