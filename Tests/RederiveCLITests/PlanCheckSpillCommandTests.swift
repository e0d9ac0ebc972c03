import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// The built binary's plan apply and the temporary file its check spills to (`DeriveSpill`):
/// killed with `kill -9` during the check, it leaves nothing in `TMPDIR` and nothing written,
/// and the same command then applies the plan to exactly what an uninterrupted apply makes;
/// an uninterrupted apply says how many records its write took from the check.
final class PlanCheckSpillCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var temporary = ""

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        // The child processes' temporary folder: empty, so whatever they leave there shows.
        temporary = dir.file("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        setenv("TMPDIR", temporary, 1)
    }

    override func tearDown() {
        unsetenv("TMPDIR")
        dir = nil
    }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    /// A stale store of 400 records and its plan.
    private func staleStore(_ name: String) throws -> (db: String, plan: String) {
        let db = dir.file("\(name).sqlite")
        let export = dir.file("\(name).jsonl")
        try ExportFixtures.writeLargeExport(records: 400, seed: 36, to: export)
        XCTAssertEqual(try rederive(["import", export, "--db", db, "-q"]).status, 0)
        try StoreInspection.execute(db, "UPDATE summary SET summary_version = 0")
        let plan = dir.file("\(name)-plan.json")
        let preview = try rederive(["derive", "--db", db, "--dry-run", "--plan", plan, "-q"])
        XCTAssertEqual(preview.status, 0, preview.stderr)
        return (db, plan)
    }

    private func apply(_ store: (db: String, plan: String)) -> [String] {
        ["derive", "--db", store.db, "--apply-plan", store.plan, "--batch-size", "1", "--workers", "1"]
    }

    func testAnApplyKilledDuringItsCheckLeavesNoSpillAndThenApplies() throws {
        let store = try staleStore("store")
        // A copy keeps the store's identity: the plan is its plan too.
        let reference = (db: dir.file("reference.sqlite"), plan: store.plan)
        try FileManager.default.copyItem(atPath: store.db, toPath: reference.db)
        let applied = try rederive(apply(reference))
        XCTAssertEqual(applied.status, 0, applied.stderr)
        XCTAssertTrue(applied.stderr.contains("the write took 400 records from the plan check"), applied.stderr)
        XCTAssertTrue(applied.stderr.contains("and derived 0 again"), applied.stderr)

        let before = try StoreInspection.dump(store.db)
        let child = try CommandLineTool.Child(apply(store), stderrPath: dir.file("killed.err"))
        // The line just before the check; one record a batch, so the check is under way.
        while child.isRunning && !child.stderr.contains("applying the plan") { usleep(2_000) }
        usleep(20_000)
        XCTAssertTrue(child.isRunning, "still checking: \(child.stderr)")
        child.signal(SIGKILL)
        XCTAssertTrue(child.wait().signaled)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temporary), [], "no spill left")
        StoreInspection.assertEqual(try StoreInspection.dump(store.db), before, "nothing written")

        let again = try rederive(apply(store))
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: temporary), [])
        StoreInspection.assertEqual(
            try StoreInspection.dump(store.db), try StoreInspection.dump(reference.db),
            "applied after the kill vs uninterrupted")
    }
}
