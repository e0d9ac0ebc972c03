import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// A plan's apply writes what its check derived (`DeriveSpill`): every record is derived once,
/// the stored result is exactly a plain derive's, a raw room changed between the check and the
/// write is derived again from what it is now, a changed spill file stops the write before the
/// batch that reads it, and a spill past its limit leaves the rest to be derived by the write.
final class DeriveSpillTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func config(spill: DeriveSpill? = nil) -> DeriveConfiguration {
        var config = DeriveConfiguration(workers: 2, batchSize: 7, showProgress: false)
        config.selection.all = true
        config.spill = spill
        return config
    }

    /// The fixture store with every summary stale (each record is written again).
    private func staleStore(_ name: String) throws -> SQLiteStore {
        let store = try SQLiteStore(path: dir.file("\(name).sqlite"))
        let files = try ExportFiles.resolve([StoreFixtures.fixturesDirectory])
        _ = try ImportJob.run(ImportConfiguration(files: files, showProgress: false), store: store)
        try StoreFixtures.execute(store, "UPDATE summary SET summary_version = 0")
        return store
    }

    /// Every stored summary column but when and by which run it was written, by record key.
    private func summaries(_ store: SQLiteStore) throws -> [String] {
        try store.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM summary ORDER BY record_seq").map { row in
                row.columnNames.filter { $0 != "derived_at" && $0 != "run_id" }
                    .map { "\($0)=\(row[$0] as DatabaseValue)" }.joined(separator: " ")
            }
        }
    }

    /// The applied plan of a stale store, with `spill` given to the apply.
    private func applyPlan(_ store: any RecordStore, spill: DeriveSpill) throws -> RunReport {
        let preview = try DeriveJob.preview(config(), store: store)
        let plan = try DeriveJob.plan(preview, config: config(), store: store)
        return try DeriveJob.apply(plan, config: config(spill: spill), store: store)
    }

    func testAnApplyDerivesEachRecordOnceAndStoresWhatAPlainDeriveStores() throws {
        let store = try staleStore("applied")
        defer { store.close() }
        let spill = try XCTUnwrap(DeriveSpill(directory: dir.path))
        let report = try applyPlan(store, spill: spill)
        XCTAssertGreaterThan(report.statistics.recordsDone, 30)
        // Every record the write stored came from the check: none was derived twice.
        let usage = spill.usage
        XCTAssertEqual(usage.reused, report.statistics.recordsDone)
        XCTAssertEqual(usage.derivedAgain, report.statistics.recordsSkipped)
        XCTAssertNil(usage.stopped)
        XCTAssertGreaterThan(usage.bytes, 0)

        let reference = try staleStore("reference")
        defer { reference.close() }
        _ = try DeriveJob.run(config(), store: reference)
        XCTAssertEqual(try summaries(store), try summaries(reference))
        // The unlinked file left nothing in the folder it was made in.
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("spill") }, [])
    }

    func testTheSpillFileHasNoNameFromTheStart() throws {
        let spill = try XCTUnwrap(DeriveSpill(directory: dir.path))
        XCTAssertGreaterThanOrEqual(spill.fileDescriptor, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
        XCTAssertNil(DeriveSpill(directory: dir.file("missing")), "no folder: no spill, the write derives")
    }

    func testARawRoomChangedBetweenTheCheckAndTheWriteIsDerivedFromWhatItIsNow() throws {
        let store = try staleStore("changed")
        defer { store.close() }
        let spill = try XCTUnwrap(DeriveSpill(directory: dir.path))
        // The check (a dry pass that spills) ...
        _ = try DeriveJob.count(config(spill: spill), store: store)
        // ... then record 1's raw room becomes record 2's, as an import of new content does it
        // (new raw room, new raw hash) ...
        try StoreFixtures.execute(
            store,
            """
            UPDATE raw_room SET skeleton = (SELECT skeleton FROM raw_room WHERE record_seq = 2),
                core_model_offset = (SELECT core_model_offset FROM raw_room WHERE record_seq = 2) WHERE record_seq = 1;
            UPDATE record SET raw_hash = (SELECT raw_hash FROM record WHERE seq = 2) WHERE seq = 1
            """)
        // ... and the write: record 1 gets what its raw room gives now, not what the check saw.
        let write = config(spill: spill)
        _ = try BatchRunner.run(DeriveJob(write, store: store, mode: .apply), settings: write.settings)
        let json = try StoreFixtures.strings(store, "SELECT summary_json FROM summary WHERE record_seq IN (1, 2)")
        XCTAssertEqual(json.count, 2)
        XCTAssertEqual(json.first, json.last)
        XCTAssertGreaterThanOrEqual(spill.usage.derivedAgain, 1)
    }

    func testAChangedSpillStopsTheWriteBeforeTheBatchThatReadsIt() throws {
        let store = try staleStore("tampered")
        defer { store.close() }
        let spill = try XCTUnwrap(DeriveSpill(directory: dir.path))
        _ = try DeriveJob.count(config(spill: spill), store: store)
        let before = try summaries(store)
        // One byte of the first chunk changed on disk, through the only way to the file.
        var byte: UInt8 = 0
        XCTAssertEqual(pread(spill.fileDescriptor, &byte, 1, 40), 1)
        byte ^= 0xFF
        XCTAssertEqual(pwrite(spill.fileDescriptor, &byte, 1, 40), 1)
        let write = config(spill: spill)
        XCTAssertThrowsError(
            try BatchRunner.run(DeriveJob(write, store: store, mode: .apply), settings: write.settings)
        ) { error in
            XCTAssertTrue("\(error)".contains("spilled results for record keys 1-"), "\(error)")
        }
        XCTAssertEqual(try summaries(store), before, "nothing written")
    }

    func testASpillPastItsLimitLeavesTheRestToTheWrite() throws {
        let store = try staleStore("limited")
        defer { store.close() }
        let spill = try XCTUnwrap(DeriveSpill(directory: dir.path, limit: 12_000))
        let report = try applyPlan(store, spill: spill)
        let usage = spill.usage
        XCTAssertNotNil(usage.stopped)
        XCTAssertLessThanOrEqual(usage.bytes, 12_000)
        XCTAssertGreaterThan(usage.reused, 0)
        XCTAssertGreaterThan(usage.derivedAgain, report.statistics.recordsSkipped)
        XCTAssertEqual(usage.reused + usage.derivedAgain, report.statistics.recordsRead)

        let reference = try staleStore("reference")
        defer { reference.close() }
        _ = try DeriveJob.run(config(), store: reference)
        XCTAssertEqual(try summaries(store), try summaries(reference))
    }

    func testAnApplyOnPostgresDerivesEachRecordOnce() throws {
        PostgresStore.register()
        let cluster = try PostgresCluster.shared()
        let url = try cluster.newDatabase()
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let files = try ExportFiles.resolve([StoreFixtures.fixturesDirectory])
        _ = try ImportJob.run(ImportConfiguration(files: files, showProgress: false), store: store)
        try cluster.sql("UPDATE summary SET summary_version = 0", url: url)
        let spill = try XCTUnwrap(DeriveSpill(directory: dir.path))
        let report = try applyPlan(store, spill: spill)
        XCTAssertGreaterThan(report.statistics.recordsDone, 30)
        XCTAssertEqual(spill.usage.reused, report.statistics.recordsDone)
        XCTAssertEqual(spill.usage.derivedAgain, report.statistics.recordsSkipped)
        XCTAssertEqual(
            try cluster.sql("SELECT count(*) FROM summary WHERE summary_version = 0", url: url), ["0"])
    }
}
