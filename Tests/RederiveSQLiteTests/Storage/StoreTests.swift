import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// The store's run history (resume by key) and failure ledger, driven directly.
final class StoreTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var db: String!
    private var store: SQLiteStore!
    private let deriver = SummaryDeriver()

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        db = dir.file("store.sqlite")
        store = try SQLiteStore(path: db)
    }

    override func tearDown() {
        store?.close()
        store = nil
        dir = nil
    }

    private func begin(_ key: String?) throws -> RunStart {
        try store.beginRun(
            RunStartRequest(command: "derive", pipeline: nil, arguments: "derive", resumeKey: key, deriver: deriver))
    }

    private func status(_ id: Int64) throws -> String? {
        try StoreInspection.rows(db, "SELECT status FROM run WHERE id = ?", [id]).first?["status"]
    }

    func testARejoinedRunIsTheSameRunReopenedWithItsCountsCarried() throws {
        let first = try store.beginRun(
            RunStartRequest(
                command: "derive", pipeline: nil, arguments: "derive", resumeKey: "plan:x", deriver: deriver,
                continuation: .asSameRun))
        var saved = RunStatistics()
        (saved.recordsRead, saved.recordsDone, saved.decodedBytes) = (300, 280, 9000)
        try store.setUpperBound(runID: first.runID, upperBoundSeq: 900)
        try StoreInspection.execute(
            db, "UPDATE run SET records_read = 300, records_done = 280, bytes_read = 9000, checkpoint_seq = 310")
        // Killed: still `running`. The next start reopens it rather than starting run 2.
        let again = try store.beginRun(
            RunStartRequest(
                command: "derive", pipeline: nil, arguments: "derive", resumeKey: "plan:x", deriver: deriver,
                continuation: .asSameRun))
        XCTAssertEqual(again.runID, first.runID)
        XCTAssertEqual(again.resumedFrom, first.runID)
        XCTAssertEqual(again.checkpointSeq, 310)
        XCTAssertEqual(again.upperBoundSeq, 900)
        var carried = try XCTUnwrap(again.carried)
        XCTAssertEqual([carried.recordsRead, carried.recordsDone, Int(carried.decodedBytes)], [300, 280, 9000])
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM run"), 1)
        // Rates count what this process read in its own time, not the carried totals.
        carried.recordsRead += 100
        carried.decodedBytes += 2_000_000
        carried.seconds = 2
        XCTAssertEqual(carried.recordsPerSecond, 50)
        XCTAssertEqual(carried.megabytesPerSecond, 1)
        // A completed run is never reopened.
        try store.finishRun(first.runID, status: .completed, exitStatus: 0, statistics: saved)
        let next = try store.beginRun(
            RunStartRequest(
                command: "derive", pipeline: nil, arguments: "derive", resumeKey: "plan:x", deriver: deriver,
                continuation: .asSameRun))
        XCTAssertNotEqual(next.runID, first.runID)
        XCTAssertNil(next.carried)
    }

    func testUnfinishedRunsAreResumedFromTheirCheckpoint() throws {
        let first = try begin("k")
        XCTAssertNil(first.resumedFrom)
        XCTAssertNil(first.checkpointSeq)
        try store.setUpperBound(runID: first.runID, upperBoundSeq: 500)
        try store.pool.write { db in
            var stats = RunStatistics()
            stats.recordsRead = 20
            try store.saveProgress(db, runID: first.runID, statistics: stats, checkpointSeq: 120)
        }
        // Killed while running: the next run with the same key continues it.
        let second = try begin("k")
        XCTAssertEqual(second.resumedFrom, first.runID)
        XCTAssertEqual(second.checkpointSeq, 120)
        XCTAssertEqual(second.upperBoundSeq, 500)
        XCTAssertEqual(try status(first.runID), "crashed")
        // Another key is independent.
        XCTAssertNil(try begin("other").resumedFrom)
        // Interrupted and aborted runs are continued too, from the checkpoint they inherited.
        for ending in [RunStatus.interrupted, .aborted] {
            let latest = try XCTUnwrap(
                try StoreInspection.rows(db, "SELECT id FROM run WHERE resume_key = 'k' ORDER BY id DESC").first?["id"]
                    as Int64?)
            try store.finishRun(latest, status: ending, exitStatus: 130, statistics: RunStatistics())
            let next = try begin("k")
            XCTAssertEqual(next.resumedFrom, latest, "\(ending)")
            XCTAssertEqual(next.checkpointSeq, 120)
            XCTAssertEqual(next.upperBoundSeq, 500)
            XCTAssertEqual(try status(latest), ending.rawValue, "an ended run keeps its status")
        }
    }

    func testCompletedOrFailedRunsAreNotResumed() throws {
        for ending in [RunStatus.completed, .failed] {
            let run = try begin("k-\(ending)")
            try store.pool.write {
                try store.saveProgress($0, runID: run.runID, statistics: RunStatistics(), checkpointSeq: 7)
            }
            try store.finishRun(run.runID, status: ending, exitStatus: 0, statistics: RunStatistics())
            let next = try begin("k-\(ending)")
            XCTAssertNil(next.resumedFrom, "\(ending)")
            XCTAssertNil(next.checkpointSeq)
        }
        // Without a key nothing is ever resumed.
        _ = try begin(nil)
        XCTAssertNil(try begin(nil).resumedFrom)
    }

    func testFinishRunRecordsTheEnd() throws {
        let run = try begin("k")
        var stats = RunStatistics()
        stats.recordsRead = 10
        stats.recordsDone = 7
        stats.recordsUnchanged = 2
        stats.recordsSkipped = 1
        stats.seconds = 1.5
        try store.finishRun(run.runID, status: .completed, exitStatus: 3, statistics: stats)
        let row = try XCTUnwrap(try StoreInspection.run(db, id: run.runID))
        XCTAssertEqual(row["status"] as String, "completed")
        XCTAssertEqual(row["exit_status"] as Int, 3)
        XCTAssertEqual(row["records_read"] as Int, 10)
        XCTAssertEqual(row["records_done"] as Int, 7)
        XCTAssertEqual(row["records_unchanged"] as Int, 2)
        XCTAssertEqual(row["records_skipped"] as Int, 1)
        XCTAssertNotNil(row["finished_at"] as String?)
        XCTAssertEqual(row["duration_s"] as Double, 1.5)
    }

    func testLedgerKeysOpenRefreshAndClear() throws {
        let byID = RecordIssue(
            file: "a.jsonl", line: 3, id: "X", stage: .decode, code: "negative_dimension", message: "m")
        let byLine = RecordIssue(file: "a.jsonl", line: 4, id: nil, stage: .parse, code: "invalid_json", message: "m")
        let duplicate = RecordIssue(
            file: "a.jsonl", line: 9, id: "X", stage: .upgrade, code: "duplicate_id", message: "m")
        let fault = RecordIssue(
            file: "b.jsonl.zst", line: nil, byteOffset: 10, stage: .read, code: "truncated_frame", message: "m")
        XCTAssertEqual(SQLiteStore.ledgerKey(byID), "id:X")
        XCTAssertEqual(SQLiteStore.ledgerKey(byLine), "line:a.jsonl:4")
        XCTAssertEqual(
            SQLiteStore.ledgerKey(duplicate), "line:a.jsonl:9",
            "a duplicate is keyed by its line, not the kept record's id")
        XCTAssertEqual(SQLiteStore.ledgerKey(fault), "file:b.jsonl.zst")
        let run = try begin(nil)
        let firstSeen = try store.pool.write { db -> [Bool] in
            try [byID, byLine, duplicate, fault].map {
                try store.recordFailure(db, $0, runID: run.runID, now: "2026-01-01T00:00:00Z")
            }
        }
        XCTAssertEqual(firstSeen, [true, true, true, true])
        // Seen again: refreshed, not new; first_seen_at kept.
        let again = try store.pool.write {
            try store.recordFailure($0, byID, runID: run.runID, now: "2026-01-02T00:00:00Z")
        }
        XCTAssertFalse(again)
        var row = try XCTUnwrap(try StoreInspection.rows(db, "SELECT * FROM failure WHERE record_key = 'id:X'").first)
        XCTAssertEqual(row["first_seen_at"] as String, "2026-01-01T00:00:00Z")
        XCTAssertEqual(row["last_seen_at"] as String, "2026-01-02T00:00:00Z")
        // Another code for the same record: a new failure (first_seen_at restarts).
        var other = byID
        other.code = "bad_transform"
        XCTAssertTrue(
            try store.pool.write { try store.recordFailure($0, other, runID: run.runID, now: "2026-01-03T00:00:00Z") })
        row = try XCTUnwrap(try StoreInspection.rows(db, "SELECT * FROM failure WHERE record_key = 'id:X'").first)
        XCTAssertEqual(row["code"] as String, "bad_transform")
        XCTAssertEqual(row["first_seen_at"] as String, "2026-01-03T00:00:00Z")
        // The record goes through from line 4: its id and line failures close, the duplicate's stays.
        try store.pool.write {
            try store.clearFailures($0, keys: Set(SQLiteStore.clearedKeys(id: "X", file: "a.jsonl", line: 4)))
        }
        XCTAssertEqual(
            try StoreInspection.rows(db, "SELECT record_key FROM failure ORDER BY record_key").map {
                $0["record_key"] as String
            },
            ["file:b.jsonl.zst", "line:a.jsonl:9"])
    }

    func testImportClearsAFailureOnceTheRecordGoesThrough() throws {
        let id = "11111111-1111-4111-8111-111111111111"
        let file = dir.file("a.jsonl")
        let negative = #"{"walls":[{"dimensions":[-1,2,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}"#
        try ExportFixtures.write(
            lines: [
                "{\"broken\": ",
                String(
                    decoding: ExportFixtures.v3Line(id: id, name: "R", roomText: Array(negative.utf8)), as: UTF8.self),
            ], to: file)
        let broken = try StoreFixtures.importFiles([file], into: store)
        XCTAssertEqual(broken.newFailures, 2)
        XCTAssertEqual(
            try StoreInspection.rows(db, "SELECT record_key FROM failure ORDER BY record_key").map {
                $0["record_key"] as String
            },
            ["id:" + id, "line:\(file):1"])
        // The same file fixed in place: both failures close.
        try ExportFixtures.write(
            lines: [
                String(
                    decoding: ExportFixtures.v3Line(
                        id: "22222222-2222-4222-8222-222222222222", name: "S",
                        roomText: try ExportFixtures.compactRoom("Bedroom3")), as: UTF8.self),
                String(
                    decoding: ExportFixtures.v3Line(
                        id: id, name: "R", roomText: try ExportFixtures.compactRoom("Kitchen")), as: UTF8.self),
            ],
            to: file)
        let fixed = try StoreFixtures.importFiles([file], into: store)
        XCTAssertEqual(fixed.exitStatus, .ok)
        XCTAssertEqual(fixed.count("imported"), 2)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM failure"), 0)
    }
}
