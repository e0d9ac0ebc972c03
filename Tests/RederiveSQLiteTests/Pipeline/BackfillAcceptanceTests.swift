import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport

/// The backfill a calculation fix calls for, end to end: a new derivation (version bump, or
/// a parameter change the fingerprint catches) makes stored summaries stale; `status` shows
/// it, a dry run lists the changes without touching the store, the real derive applies them.
final class BackfillAcceptanceTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func importFixtures(_ db: String) throws {
        let store = try SQLiteStore(path: db)
        defer { store.close() }
        let files = try ExportFiles.resolve([RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path])
        let report = try ImportJob.run(ImportConfiguration(files: files, showProgress: false), store: store)
        XCTAssertEqual(report.statistics.recordsDone, 32)
    }

    private func storeFiles(_ db: String) -> [String: Data] {
        var out: [String: Data] = [:]
        for suffix in ["", "-wal"] {
            if let data = FileManager.default.contents(atPath: db + suffix), !(suffix == "-wal" && data.isEmpty) {
                out[suffix] = data
            }
        }
        return out
    }

    func testVersionBumpWithAChangedCalculation() throws {
        let db = dir.file("rooms.sqlite")
        try importFixtures(db)
        // The "fixed" build: version 3, and a looser wall-join tolerance that changes the
        // floor area of floorless rooms (gappy wall loops now close: loop area instead of the convex hull).
        let fixed = SummaryDeriver(version: 3, wallJoinTolerance: 1.5)

        // status: every record stale, because of its version.
        do {
            let store = try SQLiteStore(path: db, readOnly: true)
            defer { store.close() }
            let status = try store.status(deriver: fixed)
            XCTAssertEqual(status.totalRecords, 32)
            XCTAssertEqual(status.stale.total, 32)
            XCTAssertEqual(status.stale.version, 32)
        }

        // derive --dry-run: lists the changes, the store stays byte for byte the same.
        let before = storeFiles(db)
        let preview: ChangeReport
        do {
            let store = try SQLiteStore(path: db, readOnly: true)
            defer { store.close() }
            preview = try DeriveJob.preview(DeriveConfiguration(deriver: fixed, showProgress: false), store: store)
            try preview.write(toDirectory: dir.file("preview"))
        }
        XCTAssertEqual(storeFiles(db), before, "a dry run writes nothing")
        XCTAssertEqual(preview.examined, 32)
        XCTAssertGreaterThan(preview.wouldChange, 0, "the changed calculation changes some floor areas")
        XCTAssertLessThan(preview.wouldChange, 32, "rooms with floors are not affected")
        let area = try XCTUnwrap(preview.field("estimated_floor_area_sqm"))
        XCTAssertEqual(area.changed, preview.largestChanges.filter { $0.floorAreaDelta != 0 }.count)
        let markdown = try String(contentsOfFile: dir.file("preview/preview.md"), encoding: .utf8)
        for change in preview.largestChanges { XCTAssertTrue(markdown.contains(String(change.id.prefix(8)))) }

        // derive: applies it; status then shows nothing stale, and the values are the new ones.
        let store = try SQLiteStore(path: db)
        defer { store.close() }
        let report = try DeriveJob.run(DeriveConfiguration(deriver: fixed, showProgress: false), store: store)
        XCTAssertEqual(report.exitStatus, .ok)
        XCTAssertEqual(report.statistics.recordsDone, 32)
        let after = try store.status(deriver: fixed)
        XCTAssertEqual(after.stale.total, 0)
        let versions = try store.pool.read { try Int.fetchAll($0, sql: "SELECT DISTINCT summary_version FROM summary") }
        XCTAssertEqual(versions, [3])
        let hulls = try store.pool.read {
            try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM summary WHERE floor_area_method = 'wall_loop'")
        }
        XCTAssertGreaterThan(hulls ?? 0, 0)

        // A second dry run finds nothing left to change.
        let again = try DeriveJob.preview(DeriveConfiguration(deriver: fixed, showProgress: false), store: store)
        XCTAssertEqual(again.examined, 0)
    }

    func testForgottenVersionBumpIsCaughtByTheFingerprint() throws {
        let db = dir.file("rooms.sqlite")
        try importFixtures(db)
        let changedButNotBumped = SummaryDeriver(version: 2, wallJoinTolerance: 1.5)
        let store = try SQLiteStore(path: db)
        defer { store.close() }
        let status = try store.status(deriver: changedButNotBumped)
        XCTAssertEqual(status.stale.fingerprint, 32)
        XCTAssertEqual(status.stale.version, 0)
        let report = try DeriveJob.run(
            DeriveConfiguration(deriver: changedButNotBumped, showProgress: false), store: store)
        XCTAssertEqual(report.statistics.recordsRead, 32)
        XCTAssertEqual(try store.status(deriver: changedButNotBumped).stale.total, 0)
    }
}
