import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// A derive while another connection renames records, makes rows stale behind and ahead of its
/// cursor and inserts new ones: each record up to its bound visited exactly once.
extension CrashRecoveryTests {
    // MARK: - Concurrent updates

    func testDeriveWithConcurrentUpdatesVisitsEachRecordExactlyOnce() throws {
        // Every summary stale, so the run writes (and stamps with its run id) every record it visits.
        let db = try referenceCopy("concurrent.sqlite", "UPDATE summary SET summary_version = 0")
        let before = try XCTUnwrap(CommandLineTool.latestRun(db)?["id"] as Int64?)
        let maxSeq = Int64(try StoreInspection.int(db, "SELECT MAX(seq) FROM record"))
        // One record a batch on one worker: a run long enough (a commit per record, ~2,000) for
        // the changes below to land both behind and ahead of its cursor, however fast the
        // machine (batches of 5 let a derive that no longer re-validates rooms finish first).
        let child = try CommandLineTool.Child(
            ["derive", "--db", db, "--batch-size", "1", "--workers", "1", "--quiet", "--all"],
            stderrPath: dir.file("concurrent.err"))

        let other = try StoreInspection.open(db)
        var renamed: [Int64: Int] = [:]
        var behind = Set<Int64>(), ahead = Set<Int64>(), inserted: [Int64] = []
        var generator = SystemRandomNumberGenerator()
        var runID: Int64?
        while child.isRunning {
            guard let run = CommandLineTool.latestRun(db), (run["id"] as Int64) > before,
                (run["command"] as String) == "derive",
                run["upper_bound_seq"] as Int64? != nil
            else {
                usleep(1_000)
                continue
            }
            runID = run["id"]
            let renamedSeq = Int64.random(in: 1...maxSeq, using: &generator)
            try other.write {
                try $0.execute(
                    sql: "UPDATE record SET room_name = room_name || '-x' WHERE seq = ?", arguments: [renamedSeq])
            }
            renamed[renamedSeq, default: 0] += 1
            // The cursor position is read inside the writing transaction: the run cannot commit
            // meanwhile, so "behind" and "ahead" are exact at the moment of the change.
            let (b, a): (Int64?, Int64?) = try other.write { db in
                let checkpoint =
                    try Int64.fetchOne(db, sql: "SELECT checkpoint_seq FROM run WHERE id = ?", arguments: [runID]) ?? 0
                var b: Int64?, a: Int64?
                if checkpoint > 0 {
                    // Already committed by the run: made stale again, it must not be visited again.
                    b = Int64.random(in: 1...checkpoint, using: &generator)
                    try db.execute(sql: "UPDATE summary SET summary_version = 0 WHERE record_seq = ?", arguments: [b])
                }
                // Well ahead of anything fetched (at most ~5 batches of 20 are in flight).
                if checkpoint + 200 < maxSeq {
                    a = Int64.random(in: (checkpoint + 200)...maxSeq, using: &generator)
                    try db.execute(sql: "UPDATE summary SET summary_version = 0 WHERE record_seq = ?", arguments: [a])
                }
                return (b, a)
            }
            if let b { behind.insert(b) }
            if let a { ahead.insert(a) }
            // A new record past the run's upper bound: left for the next run.
            let source = Int64.random(in: 1...maxSeq, using: &generator)
            let seq: Int64 = try other.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO record (id, room_name, captured_at, source_format_version, source_file, source_line,
                                            raw_hash, raw_size, source_summary, source_summary_version, stored_at)
                        SELECT ?, room_name, captured_at, source_format_version, source_file, source_line, raw_hash,
                               raw_size, source_summary, source_summary_version, stored_at FROM record WHERE seq = ?
                        """, arguments: [UUID().uuidString, source])
                let seq = db.lastInsertedRowID
                try db.execute(
                    sql:
                        "INSERT INTO raw_room SELECT ?, core_model_offset, skeleton FROM raw_room WHERE record_seq = ?",
                    arguments: [seq, source])
                try db.execute(
                    sql: "INSERT INTO raw_core_model SELECT ?, bytes FROM raw_core_model WHERE record_seq = ?",
                    arguments: [seq, source])
                return seq
            }
            inserted.append(seq)
            // A round every 20 ms. Back to back (0.5 ms apart) the rounds held the write lock so
            // often that the derive's commits waited through SQLite's busy back-off (up to 100 ms
            // a try): its 2,000 commits took 133 s on a busy machine, 10 s without the rounds.
            usleep(20_000)
        }
        try other.close()
        let (status, signaled) = child.wait()
        XCTAssertFalse(signaled)
        XCTAssertEqual(status, 0, child.stderr)
        let id = try XCTUnwrap(runID, "the derive run was seen while running")
        XCTAssertGreaterThan(behind.count, 0, "rows behind the cursor were changed while the run went on")
        XCTAssertGreaterThan(ahead.count, 0, "rows ahead of the cursor were changed while the run went on")
        XCTAssertGreaterThan(inserted.count, 0)

        let run = try XCTUnwrap(try StoreInspection.run(db, id: id))
        let n = corpus.records
        XCTAssertEqual(run["status"] as String, "completed")
        XCTAssertEqual(run["upper_bound_seq"] as Int64, maxSeq)
        // Each record up to the upper bound visited exactly once: read count, and every one stamped.
        XCTAssertEqual(run["records_read"] as Int, n)
        XCTAssertEqual(run["records_done"] as Int, n, "all were stale when visited")
        XCTAssertEqual(run["records_unchanged"] as Int, 0)
        XCTAssertEqual(run["records_skipped"] as Int, 0)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM summary WHERE run_id = ?", [id]), n)
        XCTAssertEqual(
            try StoreInspection.int(
                db,
                "SELECT COUNT(*) FROM record LEFT JOIN summary ON record_seq = seq "
                    + "WHERE seq <= ? AND (run_id IS NOT ? OR summary.record_seq IS NULL)",
                [maxSeq, id]), 0,
            "no record up to the bound skipped")
        // Nothing past the bound touched.
        XCTAssertTrue(inserted.allSatisfy { $0 > maxSeq })
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM summary WHERE record_seq > ?", [maxSeq]), 0)
        XCTAssertEqual(
            try StoreInspection.int(db, "SELECT COUNT(*) FROM record WHERE seq > ?", [maxSeq]), inserted.count)
        // Made stale behind the cursor: not visited again. Ahead: visited (once) after the change.
        for seq in behind {
            XCTAssertEqual(
                try StoreInspection.int(db, "SELECT summary_version FROM summary WHERE record_seq = ?", [seq]), 0,
                "seq \(seq) behind")
        }
        for seq in ahead.subtracting(behind) {
            let row = try XCTUnwrap(
                try StoreInspection.rows(db, "SELECT summary_version, run_id FROM summary WHERE record_seq = ?", [seq])
                    .first)
            XCTAssertEqual(row["summary_version"] as Int, SummaryDeriver.currentVersion, "seq \(seq) ahead")
            XCTAssertEqual(row["run_id"] as Int64, id, "seq \(seq) ahead")
        }
        // The run wrote derived columns only: the concurrent renames all survived.
        let names = Dictionary(
            uniqueKeysWithValues: try StoreInspection.rows(corpus.reference, "SELECT seq, room_name FROM record").map {
                ($0["seq"] as Int64, $0["room_name"] as String)
            })
        for (seq, times) in renamed {
            let name =
                try StoreInspection.rows(db, "SELECT room_name FROM record WHERE seq = ?", [seq]).first?["room_name"]
                as String?
            XCTAssertEqual(name, names[seq]! + String(repeating: "-x", count: times), "seq \(seq)")
        }
        // Derived values equal the reference's (they do not depend on the renamed column).
        XCTAssertEqual(
            try StoreInspection.dump(db)["summary"]!.map {
                $0.replacingOccurrences(
                    of: "summary_version=0", with: "summary_version=\(SummaryDeriver.currentVersion)")
            },
            corpus.referenceDump["summary"]!.map { $0 } + [])
        // The next run picks up exactly what was left: the new records and the rows made stale behind.
        XCTAssertEqual(try CommandLineTool.run(deriveArguments(db, all: false), stderrPath: dir.file("next.err")), 0)
        let next = try XCTUnwrap(CommandLineTool.latestRun(db))
        XCTAssertNil(next["resumed_from"] as Int64?)
        XCTAssertEqual(next["records_read"] as Int, inserted.count + behind.count)
        XCTAssertEqual(
            try StoreInspection.int(
                db, "SELECT COUNT(*) FROM summary WHERE summary_version <> \(SummaryDeriver.currentVersion)"), 0)
    }
}
