import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
import RederiveCorpus
@testable import RederiveTestSupport

/// The README's "Walkthrough: backfill after a calculation fix", end to end, with the
/// simulated fix a `make build-fixed` build carries (issue 24, item 9; review #13). The fix is
/// a value (`SummaryDeriver.simulatedFixed`); the compile-time condition only makes it the
/// default. So the test needs no second build: the "installed" build is `SummaryDeriver()`,
/// the fixed one `simulatedFixed`, both driven through the library entry points the CLI uses.
final class SimulatedFixWalkthroughTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func importFiles(_ paths: [String], into db: String, deriver: SummaryDeriver) throws -> RunReport {
        let store = try SQLiteStore(path: db)
        defer { store.close() }
        let files = try ExportFiles.resolve(paths)
        return try ImportJob.run(ImportConfiguration(files: files, deriver: deriver, showProgress: false), store: store)
    }

    private func config(_ deriver: SummaryDeriver) -> DeriveConfiguration {
        var config = DeriveConfiguration(deriver: deriver, showProgress: false)
        config.selection.all = true
        return config
    }

    func testTheSimulatedFixChangesOnlyShortestWallAndItsVersion() throws {
        let fixed = SummaryDeriver.simulatedFixed
        XCTAssertFalse(SummaryDeriver.simulatedFixBuilt, "the test build is the normal one")
        XCTAssertEqual(SummaryDeriver().fingerprint, SummaryDeriver(simulatedFix: false).fingerprint)
        // A reserved number no real summary version reaches (issue 37: v2 is a real one).
        XCTAssertEqual(fixed.version, SummaryDeriver.simulatedFixVersion)
        XCTAssertGreaterThanOrEqual(fixed.version, 1_000_000)
        XCTAssertGreaterThan(fixed.version, SummaryDeriver.currentVersion)
        XCTAssertTrue(fixed.closesWallGaps, "the fix is on top of the current derivation")
        XCTAssertNotEqual(
            fixed.fingerprint, SummaryDeriver(version: fixed.version).fingerprint, "the fix is in the fingerprint")
        XCTAssertNotNil(SummaryDeriver.versionNotes[fixed.version])
        // A room with a 0.1 m wall sliver, and the fixture rooms.
        let sliver = Room(
            walls: RoomBuilder.walls(outline: [SIMD2(0, 0), SIMD2(4, 0), SIMD2(4, 0.1), SIMD2(4, 3), SIMD2(0, 3)]))
        var changed = 0
        for room in [sliver] + (try RoomFixtures.names.map(RoomFixtures.load)) {
            guard case .success(let old) = SummaryDeriver().derive(room),
                case .success(let new) = fixed.derive(room)
            else { return XCTFail("derivation failed") }
            let widths = room.walls.map(\.dimensions.x)
            XCTAssertEqual(new.shortestWallM, widths.filter { $0 >= SummaryDeriver.sliverWidth }.min() ?? 0)
            XCTAssertEqual(old.shortestWallM, widths.min() ?? 0)
            var same = new
            same.shortestWallM = old.shortestWallM
            XCTAssertEqual(same, old, "only shortest_wall_m differs")
            if new.shortestWallM != old.shortestWallM { changed += 1 }
        }
        XCTAssertGreaterThanOrEqual(changed, 1, "the sliver room changes")
        XCTAssertEqual(try fixed.derive(sliver).get().shortestWallM, 2.9, accuracy: 1e-9)
    }

    func testBackfillWalkthroughWithTheFixedBuild() throws {
        let db = dir.file("demo.sqlite")
        let old = SummaryDeriver()
        let fixed = SummaryDeriver.simulatedFixed
        let exports = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path
        XCTAssertEqual(try importFiles([exports], into: db, deriver: old).statistics.recordsDone, 32)

        // 1. The fixed build sees every summary stale by version; the hint is the reviewed path.
        let store = try SQLiteStore(path: db)
        defer { store.close() }
        let status = try store.status(deriver: fixed)
        XCTAssertEqual(status.stale.version, 32)
        XCTAssertTrue(status.text().contains("--all --dry-run --plan plan.json"), status.text())
        XCTAssertFalse(status.text().contains("run `rederive derive` to refresh"))

        // 2.-3. Preview and plan: only shortest_wall_m changes, with the version's note.
        let preview = try DeriveJob.preview(config(fixed), store: store)
        let changedFields = preview.changedFields.map(\.key)
        XCTAssertEqual(changedFields, ["shortest_wall_m"])
        let shortest = try XCTUnwrap(preview.field("shortest_wall_m")).changed
        XCTAssertGreaterThan(shortest, 0)
        XCTAssertLessThan(shortest, 32)
        // The notes of the noted versions in between (none) and the fix's own, not a million lines.
        XCTAssertEqual(preview.versionNotes.map(\.version), [fixed.version])
        XCTAssertTrue(
            preview.versionNotes.contains { $0.version == fixed.version && $0.note?.contains("slivers") == true })
        let plan = try DeriveJob.plan(preview, config: config(fixed), store: store)
        XCTAssertEqual(plan.counts.rewrites, 32)
        XCTAssertEqual(plan.build, RederiveVersion.build)
        try plan.write(to: dir.file("backfill-plan.json"))
        let loaded = try DerivePlan.load(path: dir.file("backfill-plan.json"))

        // The installed (older) build refuses it and says to use the build that made it (#12).
        XCTAssertThrowsError(try DeriveJob.apply(loaded, config: config(old), store: store)) { error in
            XCTAssertTrue("\(error)".contains("this binary is older"), "\(error)")
            XCTAssertTrue("\(error)".contains("run the plan with that build"), "\(error)")
        }

        // Records the fixed build imports after the plan are already fresh: counted, nothing to do (#14).
        let late = dir.file("late.jsonl")
        var options = CorpusGenerator.Options(records: 3, seed: 7)
        options.corruptFraction = 0
        options.collectLines = false
        try ExportFixtures.writeGenerated(options, to: late)
        XCTAssertEqual(try importFiles([late], into: db, deriver: fixed).statistics.recordsDone, 3)
        XCTAssertEqual(
            try PlanProgress.addedAfterPlan(loaded, config: config(fixed), store: store),
            "3 records imported after the plan are not part of it; all already fresh (derived when imported): "
                + "nothing to do")

        // 4.-5. Apply exactly that plan: nothing stale after.
        let applied = try DeriveJob.apply(loaded, config: config(fixed), store: store)
        XCTAssertEqual(applied.exitStatus, ExitStatus.ok)
        XCTAssertEqual(applied.statistics.recordsDone, 32)
        XCTAssertEqual(try store.status(deriver: fixed).stale.total, 0)

        // 6. Wrong after all: the dry run lists the records and fields a revert restores.
        let dry = try RevertJob.run(RevertConfiguration(run: applied.runID, dryRun: true), store: store)
        let changes = try XCTUnwrap(dry.changes).map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(changes.count, 32)
        let fieldSets = changes.map { Set(($0["fields"] as? [String: Any] ?? [:]).keys) }
        XCTAssertEqual(fieldSets.filter { $0 == ["summary_version", "shortest_wall_m"] }.count, shortest)
        XCTAssertEqual(fieldSets.filter { $0 == ["summary_version"] }.count, 32 - shortest)

        let reverted = try RevertJob.run(RevertConfiguration(run: applied.runID), store: store)
        XCTAssertEqual(reverted.counts.first { $0.0 == "restored" }?.1, 32)
        XCTAssertTrue(reverted.warnings.isEmpty)
        // After the revert the hint still is the reviewed path, not a derive that redoes the backfill (#11).
        let afterRevert = try store.status(deriver: fixed)
        XCTAssertEqual(afterRevert.stale.version, 32)
        XCTAssertTrue(afterRevert.text().contains("--apply-plan plan.json"))

        // Pruned history: a revert of the backfill has nothing left and says so (#10).
        XCTAssertGreaterThan(try store.pruneHistory(keepRuns: 0, before: nil), 0)
        let pruned = try RevertJob.run(RevertConfiguration(run: applied.runID), store: store)
        XCTAssertEqual(pruned.exitStatus, ExitStatus.skippedRecords)
        XCTAssertEqual(
            pruned.warnings.first?.hasPrefix(
                "history of run \(applied.runID) was pruned: nothing to restore for 32 records"), true,
            "\(pruned.warnings)")
    }
}
