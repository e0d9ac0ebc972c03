import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `CopyStoreJob` from one SQLite store into another: the same records, byte-identical raw
/// rooms, the same source file and line, summaries derived by this build; resumable, and
/// the source left byte-identical.
final class CopyStoreJobTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }

    override func tearDown() {
        RunControl.resetStop()
        dir = nil
    }

    /// A store holding every committed export (45 good records, failures, imported files).
    private func sourceStore() throws -> String {
        let path = dir.file("source.sqlite")
        let store = try SQLiteStore(path: path)
        try StoreFixtures.importFiles(try StoreFixtures.committedExportFiles, into: store)
        store.close()
        return path
    }

    @discardableResult
    private func copy(
        _ source: String, to destination: String, batchSize: Int = 7, reportPath: String? = nil
    ) throws -> RunReport {
        let from = try SQLiteStore(path: source, mode: .readOnly)
        defer { from.close() }
        let to = try SQLiteStore(path: destination, mode: .createIfMissing)
        defer { to.close() }
        let settings = RunSettings(
            workers: 2, batchSize: batchSize, reportPath: reportPath, arguments: "copy-store", showProgress: false)
        return try CopyStoreJob.run(CopyStoreConfiguration(settings: settings), from: from, to: to)
    }

    /// `rederive export`'s lines (every summary, stale ones too) without their derivation times.
    private func exported(_ path: String) throws -> [String] {
        let out = dir.file("export-\(UUID().uuidString.prefix(6)).jsonl")
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        XCTAssertEqual(
            try ExportJob.run(ExportConfiguration(outPath: out, includeStale: true), store: store).exitStatus, .ok)
        return try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map {
            String($0).replacingOccurrences(of: #""derivedAt":"[^"]*","#, with: "", options: .regularExpression)
        }
    }

    /// The record, raw room and summary tables, keyed by record id (no keys, times or run ids).
    private func records(_ path: String) throws -> [String: [String]] {
        try StoreInspection.dump(path).filter { ["record", "raw", "summary"].contains($0.key) }
    }

    func testCopyHoldsTheSameRecordsRawRoomsSummariesAndLeavesTheSourceUntouched() throws {
        let source = try sourceStore()
        let before = StoreInspection.fileBytes(source)
        let runsBefore = try StoreInspection.int(source, "SELECT COUNT(*) FROM run")
        let destination = dir.file("copy.sqlite")
        let report = try copy(source, to: destination)
        XCTAssertEqual(report.command, "copy-store")
        XCTAssertEqual(report.status, .completed)
        XCTAssertEqual(report.exitStatus, .ok)
        XCTAssertEqual(report.statistics.recordsRead, StoreFixtures.committedGoodRecords)
        XCTAssertEqual(report.count("copied"), StoreFixtures.committedGoodRecords)
        XCTAssertEqual(report.statistics.recordsUnchanged, 0)
        XCTAssertEqual(report.statistics.recordsSkipped, 0)
        // The store file itself (a read-only reader may leave SQLite's -shm/-wal companions, as `status` does).
        XCTAssertEqual(StoreInspection.fileBytes(source)[""], before[""], "the source store is left byte-identical")
        XCTAssertEqual(try StoreInspection.int(source, "SELECT COUNT(*) FROM run"), runsBefore)

        XCTAssertEqual(
            try StoreInspection.int(destination, "SELECT COUNT(*) FROM record"), StoreFixtures.committedGoodRecords)
        StoreInspection.assertEqual(try records(destination), try records(source), "copy vs source")
        // Source file and line, spelled out (also part of the record table above).
        XCTAssertEqual(
            try StoreInspection.rows(destination, "SELECT id, source_file, source_line FROM record ORDER BY id")
                .map { "\($0["id"] as String) \($0["source_file"] as String):\($0["source_line"] as Int)" },
            try StoreInspection.rows(source, "SELECT id, source_file, source_line FROM record ORDER BY id")
                .map { "\($0["id"] as String) \($0["source_file"] as String):\($0["source_line"] as Int)" })
        // Raw rooms byte-identical, through the store's own reader.
        let (from, to) = (
            try SQLiteStore(path: source, mode: .readOnly), try SQLiteStore(path: destination, mode: .readOnly)
        )
        let ids = try StoreInspection.rows(source, "SELECT id FROM record").map { $0["id"] as String }
        for id in ids {
            let raw = try XCTUnwrap(try from.rawRoom(id: id), id)
            XCTAssertEqual(try to.rawRoom(id: id), raw, id)
        }
        from.close()
        to.close()
        // The source's runs keep their ids, the copy's run comes after them; the failure
        // ledger comes along whole (records never stored included).
        let sourceRuns = try StoreInspection.int(source, "SELECT COUNT(*) FROM run")
        XCTAssertEqual(try StoreInspection.int(destination, "SELECT COUNT(*) FROM run"), sourceRuns + 1)
        XCTAssertEqual(try StoreInspection.run(destination)?["command"] as String?, "copy-store")
        let ledger =
            "SELECT record_key || '|' || COALESCE(record_id, '') || '|' || code || '|' || message AS x FROM failure"
        XCTAssertEqual(
            Set(try StoreInspection.rows(destination, ledger).map { $0["x"] as String }),
            Set(try StoreInspection.rows(source, ledger).map { $0["x"] as String }))
        XCTAssertGreaterThan(try StoreInspection.int(destination, "SELECT COUNT(*) FROM failure"), 0)
        XCTAssertEqual(try exported(destination), try exported(source))
    }

    func testRerunCopiesNothingNew() throws {
        let source = try sourceStore()
        let destination = dir.file("copy.sqlite")
        try copy(source, to: destination)
        let copied = try records(destination)
        let rerun = try copy(source, to: destination, batchSize: 5)
        XCTAssertEqual(rerun.status, .completed)
        XCTAssertEqual(rerun.exitStatus, .ok)
        XCTAssertNil(rerun.resumedFrom, "the first copy completed")
        XCTAssertEqual(rerun.count("copied"), 0)
        XCTAssertEqual(rerun.statistics.recordsUnchanged, StoreFixtures.committedGoodRecords)
        StoreInspection.assertEqual(try records(destination), copied, "rerun")
    }

    func testStoppedCopyContinuesUpToTheSourceItStarted() throws {
        let source = try sourceStore()
        let destination = dir.file("copy.sqlite")
        RunControl.requestStop(signal: SIGINT)
        let stopped = try copy(source, to: destination, batchSize: 4)
        RunControl.resetStop()
        XCTAssertEqual(stopped.status, .interrupted)
        XCTAssertEqual(stopped.exitStatus, .interrupted)
        let partial = try StoreInspection.int(destination, "SELECT COUNT(*) FROM record")
        XCTAssertGreaterThan(partial, 0, "the page in hand was committed")
        XCTAssertLessThan(partial, StoreFixtures.committedGoodRecords)

        // Records stored in the source since the copy started wait for the next copy.
        let grown = try SQLiteStore(path: source)
        let extra = dir.file("extra.jsonl")
        try ExportFixtures.writeLargeExport(records: 3, seed: 11, to: extra)
        XCTAssertEqual(try StoreFixtures.importFiles([extra], into: grown).count("imported"), 3)
        grown.close()

        let resumed = try copy(source, to: destination, batchSize: 4)
        XCTAssertEqual(resumed.status, .completed)
        XCTAssertEqual(resumed.resumedFrom, stopped.runID)
        XCTAssertEqual(resumed.statistics.recordsRead, StoreFixtures.committedGoodRecords)
        XCTAssertEqual(resumed.statistics.recordsUnchanged, partial, "already copied: unchanged")
        XCTAssertEqual(resumed.count("copied"), StoreFixtures.committedGoodRecords - partial)

        let next = try copy(source, to: destination)
        XCTAssertNil(next.resumedFrom)
        XCTAssertEqual(next.count("copied"), 3)
        StoreInspection.assertEqual(try records(destination), try records(source), "stopped + resumed + next")
    }

    func testSummariesAreDerivedByThisBuildNotCopied() throws {
        let source = try sourceStore()
        let reference = try records(source)
        // A source whose summaries an older rederive derived (other values, version, fingerprint).
        try StoreInspection.execute(
            source,
            "UPDATE summary SET summary_version = 0, fingerprint = 'old', wall_count = 99, summary_json = '{}'")
        let destination = dir.file("copy.sqlite")
        let report = try copy(source, to: destination)
        XCTAssertEqual(report.count("copied"), StoreFixtures.committedGoodRecords)
        StoreInspection.assertEqual(try records(destination), reference, "copy of a stale store vs a fresh import")
    }

    func testRawRoomThatNoLongerDecodesIsAnIssueNotACopy() throws {
        let source = try sourceStore()
        let broken = try StoreInspection.rows(source, "SELECT id, source_file, source_line FROM record LIMIT 1")[0]
        let id: String = broken["id"]
        try StoreInspection.execute(
            source,
            "UPDATE raw_room SET skeleton = CAST('{\"walls\":' AS BLOB), core_model_offset = -1 "
                + "WHERE record_seq = (SELECT seq FROM record WHERE id = ?)", [id])
        let destination = dir.file("copy.sqlite"), reportPath = dir.file("issues.jsonl")
        let report = try copy(source, to: destination, reportPath: reportPath)
        XCTAssertEqual(report.status, .completed)
        XCTAssertEqual(report.exitStatus, .skippedRecords)
        XCTAssertEqual(report.statistics.recordsSkipped, 1)
        XCTAssertEqual(report.count("copied"), StoreFixtures.committedGoodRecords - 1)
        XCTAssertEqual(try StoreInspection.int(destination, "SELECT COUNT(*) FROM record WHERE id = ?", [id]), 0)
        let issue = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any]
        )
        XCTAssertEqual(issue["id"] as? String, id)
        XCTAssertEqual(issue["file"] as? String, broken["source_file"] as String)
        XCTAssertEqual(issue["line"] as? Int, broken["source_line"] as Int)
        XCTAssertEqual(
            try StoreInspection.int(destination, "SELECT COUNT(*) FROM failure WHERE record_id = ?", [id]), 1)
    }

    func testTheSameStoreIsRefused() throws {
        let source = try sourceStore()
        let before = StoreInspection.fileBytes(source)
        let from = try SQLiteStore(path: source, mode: .readOnly)
        defer { from.close() }
        let to = try SQLiteStore(path: source, mode: .existing)
        defer { to.close() }
        XCTAssertThrowsError(try CopyStoreJob.run(CopyStoreConfiguration(), from: from, to: to)) { error in
            XCTAssertEqual((error as? RederiveError)?.exitStatus, .usage)
            XCTAssertTrue("\(error)".contains(source), "\(error)")
        }
        XCTAssertEqual(try StoreInspection.int(source, "SELECT COUNT(*) FROM run WHERE command = 'copy-store'"), 0)
        XCTAssertEqual(StoreInspection.fileBytes(source)[""], before[""], "nothing written to the store")
    }
}
