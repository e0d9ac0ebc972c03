import Foundation
import XCTest

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// A build that added a summary column (`SummaryColumnAddition`) reads a store one column
/// behind as it is on every engine: what `status --check`, `show` and a dry run read works
/// read-only, before any migration; the next writing open adds the column to both tables.
final class AddedSummaryColumnTests: XCTestCase {
    /// This build's additions and one more.
    private let added = SummaryColumn.additions + [SummaryColumnAddition(name: "skylight_count", kind: .integer)]
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    /// Imports the 32 committed records with the store as this build opens it.
    private func importFixtures(_ store: any RecordStore) throws {
        let files = try ExportFiles.resolve([RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path])
        let report = try ImportJob.run(ImportConfiguration(files: files, showProgress: false), store: store)
        XCTAssertEqual(report.statistics.recordsDone, 32)
    }

    /// What the read-only commands read: `status` (and `status --check`), one record (`show`),
    /// a dry run's count and rooms with their preview columns.
    private func assertReadOnlyCommandsRead(_ store: any RecordStore) throws {
        let deriver = SummaryDeriver()
        let status = try store.status(deriver: deriver, runLimit: 5)
        XCTAssertEqual(status.totalRecords, 32)
        XCTAssertEqual(status.freshRecords, 32)
        var preview = DeriveSelection(all: true)
        preview.readsPreviewColumns = true
        let rooms = try store.fetchRooms(
            preview, deriver: deriver, allowDowngrade: false, after: 0, upTo: store.maxSeq(), limit: 100)
        XCTAssertEqual(rooms.count, 32)
        XCTAssertEqual(
            try store.countSelected(DeriveSelection(), deriver: deriver, allowDowngrade: false, after: 0, upTo: .max), 0
        )
        let record = try XCTUnwrap(store.record(id: rooms[0].id, deriver: deriver))
        XCTAssertEqual(record.summary?.json, rooms[0].storedJSON)
    }

    func testSQLiteReadsAStoreOneAddedColumnBehindAndMigratesItOnWrite() throws {
        let path = dir.file("rooms.sqlite")
        let store = try SQLiteStore(path: path)
        try importFixtures(store)
        store.close()
        let reader = try SQLiteStore(path: path, readOnly: true, forceImmutable: false, additions: added)
        try assertReadOnlyCommandsRead(reader)
        reader.close()
        XCTAssertThrowsError(try StoreInspection.int(path, "SELECT COUNT(skylight_count) FROM summary"), "not migrated")

        let writer = try SQLiteStore(path: path, readOnly: false, forceImmutable: false, additions: added)
        writer.close()
        XCTAssertEqual(try StoreInspection.int(path, "SELECT COUNT(*) FROM summary WHERE skylight_count = 0"), 32)
        XCTAssertEqual(try StoreInspection.int(path, "SELECT COUNT(skylight_count) FROM summary_history"), 0)
    }

    func testPostgreSQLReadsAStoreOneAddedColumnBehindAndMigratesItOnWrite() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.newDatabase()
        let store = try PostgresStore(url: url)
        try importFixtures(store)
        store.close()
        let reader = try PostgresStore(url: url, readOnly: true, additions: added)
        try assertReadOnlyCommandsRead(reader)
        reader.close()
        XCTAssertThrowsError(try cluster.sql("SELECT count(skylight_count) FROM summary", url: url), "not migrated")

        let writer = try PostgresStore(url: url, additions: added)
        writer.close()
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM summary WHERE skylight_count = 0", url: url), ["32"])
        XCTAssertEqual(try cluster.sql("SELECT count(skylight_count) FROM summary_history", url: url), ["0"])
        // No planner statistics for it, as for the fields before it (the run's ANALYZE names
        // the tables whole).
        XCTAssertEqual(
            try cluster.sql(
                """
                SELECT attrelid::regclass, attstattarget FROM pg_attribute
                WHERE attname = 'skylight_count' ORDER BY 1::text
                """, url: url), ["summary|0", "summary_history|0"])
    }
}
