import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport

/// `DeriveJob.preview` against a real store built from the committed fixtures: it must
/// report exactly what a derive then does, and leave the store file byte-identical.
final class DeriveDryRunTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var db: String { dir.file("rooms.sqlite") }

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        let fixtures = RoomFixtures.repoRoot.appendingPathComponent("Fixtures").path
        let store = try SQLiteStore(path: db)
        _ = try ImportJob.run(
            ImportConfiguration(files: try ExportFiles.resolve([fixtures]), showProgress: false), store: store)
        store.close()
    }

    override func tearDown() { dir = nil }

    /// Runs SQL on the store through its own writable connection, then closes it.
    private func execute(_ sql: String) throws {
        let store = try SQLiteStore(path: db)
        defer { store.close() }
        try store.pool.write { try $0.execute(sql: sql) }
    }

    private func strings(_ sql: String) throws -> [String] {
        let store = try SQLiteStore(path: db, readOnly: true)
        defer { store.close() }
        return try store.pool.read { try String.fetchAll($0, sql: sql) }
    }

    /// The old floor-area bug, on the records with an even key.
    private func corruptHalf() throws -> Set<String> {
        let ids = try strings(
            "SELECT record.id FROM record JOIN summary ON summary.record_seq = record.seq WHERE record.seq % 2 = 0")
        try execute(
            """
            UPDATE summary SET summary_version = 0, floor_area_sqm = 0,
              summary_json = json_set(summary_json, '$.estimated_floor_area_sqm', 0) WHERE record_seq % 2 = 0
            """)
        return Set(ids)
    }

    /// The store's files as they are on disk (main file and -wal when present).
    private func snapshot() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: db + suffix) {
            files[suffix] = try Data(contentsOf: URL(fileURLWithPath: db + suffix))
        }
        return files
    }

    private func preview(
        _ config: DeriveConfiguration = DeriveConfiguration(workers: 3, batchSize: 7, showProgress: false),
        topCount: Int = 1000
    ) throws -> ChangeReport {
        let store = try SQLiteStore(path: db, readOnly: true)
        defer { store.close() }
        return try DeriveJob.preview(config, store: store, topCount: topCount)
    }

    /// The store's file is unchanged; a -wal that SQLite may create beside a read-only
    /// connection holds nothing.
    private func assertUntouched(_ before: [String: Data], file: StaticString = #filePath, line: UInt = #line) throws {
        let after = try snapshot()
        XCTAssertEqual(after[""], before[""], "the store file changed", file: file, line: line)
        if let wal = before["-wal"] {
            XCTAssertEqual(after["-wal"], wal, "the -wal changed", file: file, line: line)
        } else {
            XCTAssertEqual(after["-wal"]?.count ?? 0, 0, "a -wal with content appeared", file: file, line: line)
        }
    }

    func testPreviewListsExactlyTheBuggyRecordsAndWritesNothing() throws {
        let total = try strings("SELECT id FROM record").count
        XCTAssertGreaterThan(total, 20, "the fixtures should hold enough records")
        let pristine = try snapshot()
        let corrupted = try corruptHalf()
        XCTAssertNotEqual(try snapshot(), pristine, "the snapshot must see a real write")
        XCTAssertGreaterThan(corrupted.count, 0)
        let runs = try strings("SELECT id FROM run")
        let before = try snapshot()

        let report = try preview()
        try assertUntouched(before)
        XCTAssertEqual(try strings("SELECT id FROM run"), runs, "no run row")

        XCTAssertEqual(report.examined, corrupted.count, "the stale selection: the corrupted records only")
        XCTAssertEqual(report.wouldChange, corrupted.count)
        XCTAssertEqual(report.unchanged + report.neverDerived + report.wouldFail, 0)
        XCTAssertEqual(Set(report.largestChanges.map(\.id)), corrupted)
        XCTAssertEqual(report.largestChanges.count, corrupted.count)
        for change in report.largestChanges {
            XCTAssertEqual(change.floorAreaBefore, 0, change.id)
            XCTAssertGreaterThan(change.floorAreaAfter ?? 0, 0, change.id)
            XCTAssertEqual(change.changedFields, ["estimated_floor_area_sqm"], change.id)
            XCTAssertNotNil(change.roomName)
        }
        let area = try XCTUnwrap(report.field("estimated_floor_area_sqm"))
        XCTAssertEqual(area.changed, corrupted.count)
        XCTAssertEqual(area.fromZero, corrupted.count)
        XCTAssertGreaterThan(area.minDelta ?? 0, 0)
        for field in report.fields where field.key != "estimated_floor_area_sqm" {
            XCTAssertEqual(field.changed, 0, field.key)
        }
        XCTAssertEqual(report.exitStatus, .ok)
        // Breakdowns from the store's own columns: every examined record in one group of each.
        for rows in [report.byFloorAreaMethod, report.byFormatVersion, report.bySourceFile, report.byStoredVersion] {
            XCTAssertEqual(rows.map(\.examined).reduce(0, +), report.examined)
            XCTAssertEqual(rows.map(\.changed).reduce(0, +), report.wouldChange)
        }
        XCTAssertEqual(report.byStoredVersion.map(\.value), ["v0"])
        XCTAssertTrue(report.byFormatVersion.allSatisfy { Int($0.value) != nil }, "\(report.byFormatVersion)")
        XCTAssertTrue(report.bySourceFile.allSatisfy { $0.value.contains("Fixtures") }, "\(report.bySourceFile)")
        XCTAssertFalse(report.byFloorAreaMethod.contains { $0.value.hasPrefix("(") }, "\(report.byFloorAreaMethod)")
        XCTAssertEqual(
            report.versionNotes, [1, 2].map { .init(version: $0, note: SummaryDeriver.versionNotes[$0]) })
        XCTAssertEqual(report.field(.estimatedFloorAreaSqm)?.largestAbsolute.count, min(corrupted.count, 1000))
        XCTAssertEqual(report.store, db)
        XCTAssertEqual(report.selection, "stale")

        // --all sees every record; the others are up to date.
        let all = try preview(
            DeriveConfiguration(selection: DeriveSelection(all: true), workers: 1, showProgress: false), topCount: 20)
        try assertUntouched(before)
        XCTAssertEqual(all.examined, total)
        XCTAssertEqual(all.wouldChange, corrupted.count)
        XCTAssertEqual(all.upToDate, total - corrupted.count)
        XCTAssertEqual(all.versionOnly, 0)
        XCTAssertEqual(all.largestChanges.count, 20, "the default top list")

        // A real derive fixes exactly those; a second preview finds nothing left.
        let store = try SQLiteStore(path: db)
        let run = try DeriveJob.run(DeriveConfiguration(workers: 2, showProgress: false), store: store)
        store.close()
        XCTAssertEqual(run.statistics.recordsDone, corrupted.count)
        let after = try preview()
        XCTAssertEqual(after.examined, 0)
        XCTAssertEqual(after.wouldChange, 0)
        let afterAll = try preview(DeriveConfiguration(selection: DeriveSelection(all: true), showProgress: false))
        XCTAssertEqual(afterAll.examined, total)
        XCTAssertEqual(afterAll.wouldChange, 0)
        XCTAssertEqual(afterAll.upToDate, total)
        XCTAssertTrue(afterAll.largestChanges.isEmpty)
    }

    func testVersionBumpChangesVersionOnly() throws {
        let total = try strings("SELECT id FROM record").count
        let before = try snapshot()
        var config = DeriveConfiguration(showProgress: false)
        config.deriver = SummaryDeriver(version: 3)
        let report = try preview(config)
        try assertUntouched(before)
        XCTAssertEqual(report.summaryVersion, 3)
        XCTAssertEqual(report.fingerprint, SummaryDeriver(version: 3).fingerprint)
        XCTAssertEqual(report.examined, total)
        XCTAssertEqual(report.unchanged, total)
        XCTAssertEqual(report.versionOnly, total)
        XCTAssertEqual(report.wouldWrite, total)
        XCTAssertEqual(report.wouldChange, 0)
        XCTAssertEqual(report.fields.map(\.changed).reduce(0, +), 0)
        XCTAssertTrue(report.largestChanges.isEmpty)
    }

    func testRecordsThatWouldFailAreCountedAndReported() throws {
        let bad = #"{"walls":[{"dimensions":[-1,2,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}"#
        let victim = try XCTUnwrap(try strings("SELECT id FROM record ORDER BY seq LIMIT 1").first)
        try execute(
            "UPDATE raw_room SET skeleton = CAST('\(bad)' AS BLOB) WHERE record_seq = (SELECT MIN(seq) FROM record)")
        let before = try snapshot()
        let issues = dir.file("issues.jsonl")
        let report = try preview(
            DeriveConfiguration(
                selection: DeriveSelection(all: true, ids: [victim]), reportPath: issues, showProgress: false))
        try assertUntouched(before)
        XCTAssertEqual(report.examined, 1)
        XCTAssertEqual(report.wouldFail, 1)
        XCTAssertEqual(report.failuresByCode, ["negative_dimension": 1])
        XCTAssertEqual(report.failures.map(\.id), [victim])
        XCTAssertEqual(report.exitStatus, .skippedRecords)
        XCTAssertTrue(try String(contentsOfFile: issues, encoding: .utf8).contains("negative_dimension"))
    }

    func testReadOnlyStoreRefusesAMissingFile() {
        XCTAssertThrowsError(try SQLiteStore(path: dir.file("absent.sqlite"), readOnly: true))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("absent.sqlite")))
    }
}
