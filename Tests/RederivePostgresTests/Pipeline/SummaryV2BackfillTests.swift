import Foundation
import XCTest
@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// The README's "Walkthrough: backfill after a calculation fix" with the real fix, summary v2
/// (issue 37), on both engines: a store derived by v1 (`SummaryDeriver.v1`, what a `make
/// build-v1` build and every build before v2 derive) previews, plans, applies and reverts v2,
/// and the records whose values change are exactly the floorless ones whose walls do not close.
final class SummaryV2BackfillTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func config(_ deriver: SummaryDeriver) -> DeriveConfiguration {
        var config = DeriveConfiguration(deriver: deriver, showProgress: false)
        config.selection.all = true
        return config
    }

    /// The ids of the fixture records v2 changes, by deriving every fixture room both ways.
    private func floorlessOpenRooms() throws -> Set<String> {
        let exports = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path
        let source = ExportBatchSource(files: try ExportFiles.resolve([exports]))
        let processor = RecordProcessor(deriver: SummaryDeriver())
        var ids: Set<String> = []
        var total = 0
        while let batch = source.next() {
            for line in batch.lines {
                let derived = try processor.process(line: line.bytes).get()
                let room = try processor.parser.decodeRoom(derived.record.room).get()
                let id = derived.record.id
                total += 1
                let v1 = try SummaryDeriver.v1.derive(room).get()
                let v2 = try SummaryDeriver().derive(room).get()
                if v1.jsonBytes() != v2.jsonBytes() {
                    XCTAssertTrue(room.floors.isEmpty, id)
                    XCTAssertEqual(v1.floorAreaMethod, .wallHull, id)
                    XCTAssertEqual(v2.floorAreaMethod, .wallOutline, id)
                    ids.insert(id)
                }
            }
        }
        XCTAssertEqual(total, 32)
        return ids
    }

    private func walkthrough(_ store: any RecordStore, engine: String) throws {
        let v1 = SummaryDeriver.v1
        let v2 = SummaryDeriver()
        let exports = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path
        let imported = try ImportJob.run(
            ImportConfiguration(files: try ExportFiles.resolve([exports]), deriver: v1, showProgress: false),
            store: store)
        XCTAssertEqual(imported.statistics.recordsDone, 32, engine)
        let changedIDs = try floorlessOpenRooms()
        XCTAssertEqual(changedIDs.count, 5, engine)

        // 1. The v2 build sees every v1 summary stale by version.
        let status = try store.status(deriver: v2, runLimit: 10)
        XCTAssertEqual(status.stale.version, 32, engine)

        // 2.-3. Preview and plan: the floorless rooms whose walls do not close change their floor
        // area, volume and method; every other record only its version. v2's note is shown.
        let preview = try DeriveJob.preview(config(v2), store: store)
        XCTAssertEqual(preview.wouldChange, changedIDs.count, engine)
        XCTAssertEqual(preview.versionOnly, 32 - changedIDs.count, engine)
        XCTAssertEqual(
            Set(preview.changedFields.map(\.key)), ["estimated_floor_area_sqm", "floor_area_method", "volume_m3"],
            engine)
        XCTAssertEqual(Set(preview.largestChanges.map(\.id)), changedIDs, engine)
        XCTAssertEqual(preview.versionNotes.map(\.version), [2], engine)
        XCTAssertEqual(preview.versionNotes.first?.note, SummaryDeriver.versionNotes[2], engine)
        // Its thumbnails of the largest area changes are those rooms, drawn with their v2 outline
        // and the gaps it closed dashed.
        let thumbnails = try XCTUnwrap(preview.field("estimated_floor_area_sqm"), engine).thumbnails
        XCTAssertEqual(
            Set(thumbnails.map(\.id)),
            changedIDs.filter { id in
                preview.largestChanges.contains { $0.id == id && ($0.floorAreaDelta ?? 0) != 0 }
            }, engine)
        XCTAssertFalse(thumbnails.isEmpty, engine)
        XCTAssertTrue(thumbnails.allSatisfy { $0.svg.contains("data-method=\"wall_outline\"") }, engine)
        XCTAssertTrue(thumbnails.contains { $0.svg.contains("class=\"closure\"") }, engine)
        let method = try XCTUnwrap(preview.field("floor_area_method"), engine)
        XCTAssertEqual(method.changed, changedIDs.count, engine)
        // Every floor area that changes goes down: the hull over-estimated each of them.
        XCTAssertTrue(preview.largestChanges.allSatisfy { ($0.floorAreaDelta ?? 0) <= 0 }, engine)
        let plan = try DeriveJob.plan(preview, config: config(v2), store: store)
        XCTAssertEqual(plan.counts.rewrites, 32, engine)
        try plan.write(to: dir.file("\(engine)-plan.json"))
        let loaded = try DerivePlan.load(path: dir.file("\(engine)-plan.json"))

        // 4.-5. Apply exactly that plan: nothing stale after, the changed rooms say wall_outline.
        let applied = try DeriveJob.apply(loaded, config: config(v2), store: store)
        XCTAssertEqual(applied.exitStatus, ExitStatus.ok, engine)
        XCTAssertEqual(applied.statistics.recordsDone, 32, engine)
        XCTAssertEqual(try store.status(deriver: v2, runLimit: 10).stale.total, 0, engine)
        for id in changedIDs {
            let record = try XCTUnwrap(try store.record(id: id, deriver: v2), engine)
            XCTAssertTrue(record.summary?.json.contains("\"floor_area_method\":\"wall_outline\"") == true, engine)
        }

        // 6. Reverted: every summary back to v1's, stale again for v2, fresh for v1.
        let dry = try RevertJob.run(RevertConfiguration(run: applied.runID, dryRun: true), store: store)
        let changes = try XCTUnwrap(dry.changes).map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(changes.count, 32, engine)
        let areaChanged = changes.filter { (($0["fields"] as? [String: Any]) ?? [:])["floor_area_method"] != nil }
        XCTAssertEqual(Set(areaChanged.compactMap { $0["id"] as? String }), changedIDs, engine)
        let reverted = try RevertJob.run(RevertConfiguration(run: applied.runID), store: store)
        XCTAssertEqual(reverted.counts.first { $0.0 == "restored" }?.1, 32, engine)
        XCTAssertEqual(try store.status(deriver: v2, runLimit: 10).stale.version, 32, engine)
        XCTAssertEqual(try store.status(deriver: v1, runLimit: 10).stale.total, 0, engine)
    }

    func testAStoreDerivedByV1BackfillsV2OnSQLite() throws {
        let store = try SQLiteStore(path: dir.file("demo.sqlite"))
        defer { store.close() }
        try walkthrough(store, engine: "sqlite")
    }

    func testAStoreDerivedByV1BackfillsV2OnPostgres() throws {
        PostgresStore.register()
        let cluster = try PostgresCluster.shared()
        let store = try PostgresStore(url: try cluster.newDatabase())
        defer { store.close() }
        try walkthrough(store, engine: "postgres")
    }
}
