import Foundation
import GRDB
import GRDBSQLite
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `DeriveJob` over a temporary store imported from the committed fixtures.
final class DeriveJobTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var db: String!
    private var store: SQLiteStore!
    private let n = StoreFixtures.committedGoodRecords

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        db = dir.file("store.sqlite")
        store = try SQLiteStore(path: db)
        try StoreFixtures.importFiles(try StoreFixtures.committedExportFiles, into: store)
    }

    override func tearDown() {
        RunControl.resetStop()
        store?.close()
        store = nil
        dir = nil
    }

    /// A copy of the store as it is now (closed and reopened around the copy).
    private func copyStore(_ name: String) throws -> String {
        store.close()
        let copy = dir.file(name)
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: db + suffix) {
            try FileManager.default.copyItem(atPath: db + suffix, toPath: copy + suffix)
        }
        store = try SQLiteStore(path: db)
        return copy
    }

    private func stale(_ deriver: SummaryDeriver = SummaryDeriver()) throws -> Int {
        try StoreInspection.int(
            db, "SELECT COUNT(*) FROM summary WHERE summary_version <> ? OR fingerprint <> ?",
            [deriver.version, deriver.fingerprint])
    }

    private func seqs(_ limit: Int = 1000) throws -> [(seq: Int64, id: String)] {
        try StoreInspection.rows(db, "SELECT seq, id FROM record ORDER BY seq LIMIT ?", [limit]).map {
            ($0["seq"], $0["id"])
        }
    }

    func testNothingStaleDoesNothing() throws {
        let before = try StoreInspection.dump(db, excluding: .strict)
        let report = try StoreFixtures.derive(store)
        XCTAssertEqual(report.status, .completed)
        XCTAssertEqual(report.exitStatus, .ok)
        XCTAssertEqual(report.statistics.recordsRead, 0)
        XCTAssertEqual(report.count("derived"), 0)
        StoreInspection.assertEqual(
            before, try StoreInspection.dump(db, excluding: .strict), "derive with nothing stale")
    }

    func testDeriveAllLeavesValuesIdentical() throws {
        let before = try StoreInspection.dump(db, excluding: .strict)
        let beforeValues = try StoreInspection.dump(db)
        let report = try StoreFixtures.derive(store, DeriveSelection(all: true))
        XCTAssertEqual(report.status, .completed)
        XCTAssertEqual(report.statistics.recordsRead, n)
        XCTAssertEqual(report.statistics.recordsUnchanged, n)
        XCTAssertEqual(report.count("derived"), 0)
        StoreInspection.assertEqual(
            before, try StoreInspection.dump(db, excluding: .strict), "derive --all on a fresh store")
        // Values recomputed from the skeleton equal those derived at import (from the whole room):
        // damage them and --all puts back exactly what import wrote.
        try StoreInspection.execute(db, "UPDATE summary SET floor_area_sqm = -1, wall_count = 99, summary_json = '{}'")
        let repaired = try StoreFixtures.derive(store, DeriveSelection(all: true))
        XCTAssertEqual(repaired.count("derived"), n)
        StoreInspection.assertEqual(beforeValues, try StoreInspection.dump(db), "derive --all after damaging values")
    }

    /// How often the writer's summary upsert, same-version update, batch restamp and restamp of
    /// one key ran since the last call.
    private func summaryWriteRuns() throws -> (upserts: Int32, updates: Int32, restamps: Int32, singles: Int32) {
        try store.pool.write { db in
            func runs(_ sql: String) throws -> Int32 {
                sqlite3_stmt_status(try db.cachedStatement(sql: sql).sqliteStatement, SQLITE_STMTSTATUS_RUN, 1)
            }
            return (
                try runs(StoredSummary.upsertSQL), try runs(StoredSummary.updateSameVersionSQL),
                try runs(SQLiteSummaryRestamp.batchSQL), try runs(SQLiteSummaryRestamp.sql)
            )
        }
    }

    /// A rewrite of summaries already stored as derived writes only the run and the time of each
    /// (the restamp: every other column as it was, nothing kept in the history); a rewrite of
    /// changed values under the same version and fingerprint updates each row in place (no upsert,
    /// so no `summary_by_version` entry rewritten); one under another version finds no row to
    /// update and is upserted, its version and fingerprint written (after the batch's first miss
    /// without trying the update).
    func testARewriteRestampsUnchangedSummariesUpdatesChangedOnesInPlaceAndAnotherVersionUpserts() throws {
        _ = try summaryWriteRuns()
        let columns = SummaryColumn.allCases.filter { $0 != .runID && $0 != .derivedAt }.map(\.name)
        let valuesSQL = "SELECT record_seq, \(columns.joined(separator: ", ")) FROM summary ORDER BY record_seq"
        let values = try StoreInspection.rows(db, valuesSQL).map { $0.description }
        try StoreInspection.execute(db, "UPDATE summary SET derived_at = 'before'")
        var rewrite = DeriveConfiguration(selection: DeriveSelection(all: true), workers: 2, batchSize: 5)
        rewrite.settings.showProgress = false
        rewrite.rewriteUnchanged = true
        let report = try DeriveJob.run(rewrite, store: store)
        XCTAssertEqual(report.count("derived"), n)
        var runs = try summaryWriteRuns()
        XCTAssertEqual(runs.restamps, Int32((n + 4) / 5), "one a batch of 5")
        XCTAssertEqual(runs.singles, 0)
        XCTAssertEqual(runs.updates, 0)
        XCTAssertEqual(runs.upserts, 0)
        XCTAssertEqual(try StoreInspection.rows(db, valuesSQL).map { $0.description }, values)
        XCTAssertEqual(
            try StoreInspection.int(
                db, "SELECT COUNT(*) FROM summary WHERE run_id IS NOT ? OR derived_at = 'before'", [report.runID]),
            0, "every summary carries the rewrite's run and time")
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM summary_history"), 0)
        // Changed values (the JSON too) under the same version and fingerprint: updated in place.
        try StoreInspection.execute(db, "UPDATE summary SET wall_count = 99, summary_json = '{}'")
        XCTAssertEqual(try DeriveJob.run(rewrite, store: store).count("derived"), n)
        runs = try summaryWriteRuns()
        XCTAssertEqual(runs.restamps, 0)
        XCTAssertEqual(runs.updates, Int32(n))
        XCTAssertEqual(runs.upserts, 0)
        XCTAssertEqual(try StoreInspection.rows(db, valuesSQL).map { $0.description }, values)
        let v3 = SummaryDeriver(version: 3)
        XCTAssertEqual(try StoreFixtures.derive(store, deriver: v3).count("derived"), n)
        runs = try summaryWriteRuns()
        XCTAssertEqual(runs.updates, Int32((n + 4) / 5), "tried once a batch of 5, changing nothing")
        XCTAssertEqual(runs.upserts, Int32(n))
        XCTAssertEqual(try stale(v3), 0)
    }

    /// A restamp only while the stored summary is still the deriver's: a summary written by
    /// another deriver since it was read (another process) is written in full instead, and the
    /// batch's others are restamped.
    func testASameSummaryWriteFindingAnotherDeriversSummaryWritesItInFull() throws {
        let deriver = SummaryDeriver()
        let rooms = try store.fetchRooms(DeriveSelection(all: true), deriver: deriver, after: 0, upTo: .max, limit: 2)
        XCTAssertEqual(rooms.count, 2)
        let processor = RecordProcessor(deriver: deriver)
        let writes: [DeriveWrite] = try rooms.map { room in
            let (summary, json) = try processor.derive(room: room.skeletonBytes, id: room.id, storedByImport: true)
                .get()
            XCTAssertTrue(room.storedJSONIs(json))
            return .summary(seq: room.seq, id: room.id, summary: summary, json: json, replacing: .sameSummary)
        }
        let pair = "SELECT * FROM summary WHERE record_seq IN (?, ?) ORDER BY record_seq"
        let before = try StoreInspection.rows(db, pair, [rooms[0].seq, rooms[1].seq])
        try StoreInspection.execute(
            db, "UPDATE summary SET fingerprint = 'other', wall_count = 99 WHERE record_seq = ?", [rooms[1].seq])
        _ = try summaryWriteRuns()
        _ = try store.writeDeriveBatch(
            writes, runID: 77, deriver: deriver, checkpointSeq: rooms[1].seq, progress: RunStatistics())
        let runs = try summaryWriteRuns()
        XCTAssertEqual(runs.restamps, 1)
        XCTAssertEqual(runs.singles, 2, "each again on its own, to find the one missing")
        XCTAssertEqual(runs.upserts, 1)
        let after = try StoreInspection.rows(db, pair, [rooms[0].seq, rooms[1].seq])
        XCTAssertEqual(after.map { $0["run_id"] as Int64 }, [77, 77])
        for index in 0..<2 {
            for column in SummaryColumn.allCases where column != .runID && column != .derivedAt {
                XCTAssertEqual(
                    after[index][column.name] as DatabaseValue, before[index][column.name] as DatabaseValue,
                    "record \(index): \(column.name)")
            }
        }
    }

    /// The raw room's hash is read only for a plan's spill (`DeriveSelection.readsRawHash`, set by
    /// `DeriveJob.readSelection` when the job has a spill, which takes no room read without it).
    func testOnlyAPlansSpillReadsTheRawRoomsHash() throws {
        var selection = DeriveSelection(all: true)
        let plain = try store.fetchRooms(selection, deriver: SummaryDeriver(), after: 0, upTo: .max, limit: n)
        XCTAssertEqual(plain.count, n)
        XCTAssertEqual(plain.filter { !$0.rawHash.isEmpty }.count, 0)
        selection.readsRawHash = true
        let hashed = try store.fetchRooms(selection, deriver: SummaryDeriver(), after: 0, upTo: .max, limit: n)
        let stored = try StoreInspection.rows(db, "SELECT raw_hash FROM record ORDER BY seq").map {
            $0["raw_hash"] as String
        }
        XCTAssertEqual(hashed.map(\.rawHash), stored)
        XCTAssertEqual(stored.filter(\.isEmpty).count, 0)
        var config = DeriveConfiguration(selection: DeriveSelection(all: true), workers: 1, batchSize: 5)
        XCTAssertFalse(DeriveJob(config, store: store, mode: .apply).readSelection.readsRawHash)
        let spill = try XCTUnwrap(DeriveSpill(directory: dir.path))
        config.spill = spill
        XCTAssertTrue(DeriveJob(config, store: store, mode: .apply).readSelection.readsRawHash)
        // A room read without its hash never takes a spilled result, even one spilled without it.
        let room = plain[0]
        let (summary, json) = try RecordProcessor(deriver: SummaryDeriver()).derive(
            room: room.skeletonBytes, id: nil, storedByImport: true
        ).get()
        spill.append(
            [DeriveSpill.entry(seq: room.seq, rawHash: "", summary: summary, json: json)], first: room.seq,
            last: room.seq)
        let entry = try XCTUnwrap(try spill.entries(from: room.seq, through: room.seq)[room.seq])
        XCTAssertNil(entry.result(for: room), "no hash, no reuse")
    }

    func testAnotherDeriverVersionMakesEverythingStale() throws {
        let v2 = SummaryDeriver(version: 3)
        XCTAssertEqual(try stale(v2), n)
        let before = try StoreInspection.dump(db)
        let report = try StoreFixtures.derive(store, deriver: v2)
        XCTAssertEqual(report.status, .completed)
        XCTAssertEqual(report.statistics.recordsRead, n)
        XCTAssertEqual(report.count("derived"), n)
        XCTAssertEqual(try stale(v2), 0)
        XCTAssertEqual(
            try StoreInspection.int(
                db, "SELECT COUNT(*) FROM summary WHERE summary_version = 3 AND run_id = ?", [report.runID]), n)
        // Raw data untouched.
        let after = try StoreInspection.dump(db)
        XCTAssertEqual(before["record"], after["record"])
        XCTAssertEqual(before["raw"], after["raw"])
        // Nothing stale now for v2. For v1 the v2 summaries are newer, not stale: an older
        // build leaves them alone (counted as `newer`), even with --all, unless allowed to
        // downgrade them.
        XCTAssertEqual(try StoreFixtures.derive(store, deriver: v2).statistics.recordsRead, 0)
        XCTAssertEqual(try stale(), n)
        let older = try StoreFixtures.derive(store)
        XCTAssertEqual(older.count("derived"), 0)
        XCTAssertEqual(older.statistics.recordsRead, 0, "newer summaries are not selected as stale")
        let olderAll = try StoreFixtures.derive(store, DeriveSelection(all: true))
        XCTAssertEqual(olderAll.count("derived"), 0)
        XCTAssertEqual(olderAll.count("newer"), n)
        XCTAssertEqual(try stale(), n, "nothing downgraded")
        var downgrade = DeriveConfiguration(workers: 2, batchSize: 5, showProgress: false)
        downgrade.settings.allowDowngrade = true
        let downgraded = try DeriveJob.run(downgrade, store: store)
        XCTAssertEqual(downgraded.count("derived"), n)
        XCTAssertEqual(
            try StoreInspection.int(db, "SELECT allow_downgrade FROM run WHERE id = ?", [downgraded.runID]), 1)
        XCTAssertEqual(try stale(), 0)
    }

    func testIdsNarrowing() throws {
        let v2 = SummaryDeriver(version: 3)
        let all = try seqs()
        let picked = [all[3].id, all[17].id.lowercased(), "99999999-9999-4999-8999-999999999999"]
        let report = try StoreFixtures.derive(store, DeriveSelection(ids: picked), deriver: v2)
        XCTAssertEqual(report.statistics.recordsRead, 2)
        let derived = try StoreInspection.rows(
            db, "SELECT record.id FROM summary JOIN record ON seq = record_seq WHERE summary_version = 3")
        XCTAssertEqual(Set(derived.map { $0["id"] as String }), [all[3].id, all[17].id])
        // --ids with --all visits them even when fresh.
        XCTAssertEqual(
            try StoreFixtures.derive(store, DeriveSelection(all: true, ids: [all[5].id])).statistics.recordsRead, 1)
    }

    func testSinceNarrowing() throws {
        let v2 = SummaryDeriver(version: 3)
        let all = try seqs()
        try StoreInspection.execute(db, "UPDATE record SET stored_at = '2020-01-01T00:00:00.000Z'")
        try StoreInspection.execute(
            db, "UPDATE record SET stored_at = '2026-11-01T00:00:00.000Z' WHERE seq IN (?, ?, ?)",
            [all[0].seq, all[10].seq, all[20].seq])
        let report = try StoreFixtures.derive(store, DeriveSelection(since: "2026-11-01T00:00:00.000Z"), deriver: v2)
        XCTAssertEqual(report.statistics.recordsRead, 3)
        XCTAssertEqual(try stale(v2), n - 3)
        XCTAssertEqual(
            try StoreFixtures.derive(store, DeriveSelection(since: "2026-11-02T00:00:00Z"), deriver: v2).statistics
                .recordsRead, 0)
    }

    func testSinceComparesTimesNotText() throws {
        // Stored times carry milliseconds only when non-zero ("…:00Z" vs "…:00.500Z"), and
        // --since may be written with another precision or offset: compare instants.
        let v2 = SummaryDeriver(version: 3)
        let all = try seqs()
        try StoreInspection.execute(db, "UPDATE record SET stored_at = '2020-01-01T00:00:00Z'")
        let times = [
            "2026-11-01T10:00:00.500Z", "2026-11-01T10:00:00Z", "2026-11-01T09:59:59.900Z", "2026-11-01T10:00:01Z",
        ]
        for (i, time) in times.enumerated() {
            try StoreInspection.execute(db, "UPDATE record SET stored_at = ? WHERE seq = ?", [time, all[i].seq])
        }
        for since in ["2026-11-01T10:00:00Z", "2026-11-01T10:00:00.000Z", "2026-11-01T12:00:00+02:00"] {
            XCTAssertEqual(
                try store.countSelected(DeriveSelection(since: since), deriver: v2, after: 0, upTo: Int64.max), 3, since
            )
        }
        XCTAssertEqual(
            try store.countSelected(
                DeriveSelection(since: "2026-11-01T10:00:00.600Z"), deriver: v2, after: 0, upTo: Int64.max), 1)
        XCTAssertEqual(
            try store.countSelected(DeriveSelection(since: "2026-11-01"), deriver: v2, after: 0, upTo: Int64.max), 4)
        let report = try StoreFixtures.derive(store, DeriveSelection(since: "2026-11-01T10:00:00Z"), deriver: v2)
        XCTAssertEqual(report.statistics.recordsRead, 3)
    }

    func testRetryFailedReDerivesOnlyLedgerFailures() throws {
        let target = try seqs()[7]
        let original = try XCTUnwrap(
            try StoreInspection.rows(db, "SELECT skeleton FROM raw_room WHERE record_seq = ?", [target.seq]).first?[
                "skeleton"] as Data?)
        let importLedger = try StoreInspection.rows(db, "SELECT record_key FROM failure").map {
            $0["record_key"] as String
        }.sorted()
        // A bad skeleton written straight into the store: a wall with a negative width.
        let bad = #"{"walls":[{"dimensions":[-1,2.4,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}],"coreModel":""}"#
        try StoreInspection.execute(
            db, "UPDATE raw_room SET skeleton = ? WHERE record_seq = ?", [Data(bad.utf8), target.seq])
        let broken = try StoreFixtures.derive(store, DeriveSelection(all: true))
        XCTAssertEqual(broken.status, .completed)
        XCTAssertEqual(broken.exitStatus, .skippedRecords)
        XCTAssertEqual(broken.statistics.recordsSkipped, 1)
        XCTAssertEqual(broken.newFailures, 1)
        let failure = try XCTUnwrap(
            try StoreInspection.rows(db, "SELECT * FROM failure WHERE record_key = ?", ["id:" + target.id]).first)
        XCTAssertEqual(failure["stage"] as String, "decode")
        XCTAssertEqual(failure["code"] as String, "negative_dimension")
        XCTAssertEqual(failure["record_id"] as String, target.id)
        XCTAssertEqual(failure["run_id"] as Int64, broken.runID)

        // Still broken: a retry fails again, the failure stays open (not new).
        let again = try StoreFixtures.derive(store, DeriveSelection(retryFailed: true))
        XCTAssertEqual(again.statistics.recordsRead, 1)
        XCTAssertEqual(again.newFailures, 0)
        XCTAssertEqual(
            try StoreInspection.int(db, "SELECT COUNT(*) FROM failure WHERE record_key = ?", ["id:" + target.id]), 1)

        // Fixed: --retry-failed visits exactly that record and clears its failure, nothing else.
        try StoreInspection.execute(
            db, "UPDATE raw_room SET skeleton = ? WHERE record_seq = ?", [original, target.seq])
        let retried = try StoreFixtures.derive(store, DeriveSelection(retryFailed: true))
        XCTAssertEqual(retried.status, .completed)
        XCTAssertEqual(retried.exitStatus, .ok)
        XCTAssertEqual(retried.statistics.recordsRead, 1)
        XCTAssertEqual(
            try StoreInspection.rows(db, "SELECT record_key FROM failure").map { $0["record_key"] as String }.sorted(),
            importLedger)
        XCTAssertEqual(try StoreFixtures.derive(store, DeriveSelection(retryFailed: true)).statistics.recordsRead, 0)
    }

    func testErrorBudgetAbortsAfterCommittingWorkDone() throws {
        let v2 = SummaryDeriver(version: 3)
        let all = try seqs()
        let reference = try copyStore("reference.sqlite")
        let bad = #"{"walls":[{"dimensions":[-1,2.4,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}"#
        for path in [db!, reference] {
            try StoreInspection.execute(
                path, "UPDATE raw_room SET skeleton = ? WHERE record_seq IN (?, ?)",
                [Data(bad.utf8), all[12].seq, all[30].seq])
        }
        let aborted = try StoreFixtures.derive(store, batchSize: 5, deriver: v2, control: RunControl(maxErrors: 0))
        XCTAssertEqual(aborted.status, .aborted)
        XCTAssertEqual(aborted.exitStatus, .errorBudget)
        let run = try XCTUnwrap(try StoreInspection.run(db))
        XCTAssertEqual(run["status"] as String, "aborted")
        XCTAssertEqual(run["exit_status"] as Int, 4)
        // Batches of 5: the third batch (records 11-15) holds the bad one; all of it committed.
        XCTAssertEqual(run["checkpoint_seq"] as Int64, all[14].seq)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM summary WHERE summary_version = 3"), 14)
        XCTAssertEqual(
            try StoreInspection.int(db, "SELECT COUNT(*) FROM failure WHERE record_key = ?", ["id:" + all[12].id]), 1)
        // The rerun without budget continues from the checkpoint and ends like an uninterrupted run.
        let rerun = try StoreFixtures.derive(store, batchSize: 5, deriver: v2)
        XCTAssertEqual(rerun.resumedFrom, aborted.runID)
        XCTAssertEqual(rerun.status, .completed)
        XCTAssertEqual(rerun.exitStatus, .skippedRecords)
        XCTAssertEqual(rerun.statistics.recordsRead, n - 15)
        let referenceStore = try SQLiteStore(path: reference)
        try StoreFixtures.derive(referenceStore, batchSize: 5, deriver: v2)
        referenceStore.close()
        StoreInspection.assertEqual(
            try StoreInspection.dump(db), try StoreInspection.dump(reference), "aborted + rerun vs uninterrupted")
    }

    func testStopRequestInterruptsAndRerunCompletes() throws {
        let v2 = SummaryDeriver(version: 3)
        let all = try seqs()
        let reference = try copyStore("reference.sqlite")
        RunControl.requestStop(signal: SIGTERM)
        let stopped = try StoreFixtures.derive(store, batchSize: 4, deriver: v2)
        RunControl.resetStop()
        XCTAssertEqual(stopped.status, .interrupted)
        XCTAssertEqual(stopped.exitStatus, .terminated)
        let run = try XCTUnwrap(try StoreInspection.run(db))
        XCTAssertEqual(run["status"] as String, "interrupted")
        XCTAssertEqual(run["checkpoint_seq"] as Int64, all[3].seq, "the batch in hand was committed")
        XCTAssertEqual(try stale(v2), n - 4)

        RunControl.requestStop(signal: SIGINT)
        let stoppedAgain = try StoreFixtures.derive(store, batchSize: 4, deriver: v2)
        RunControl.resetStop()
        XCTAssertEqual(stoppedAgain.exitStatus, .interrupted)
        XCTAssertEqual(stoppedAgain.resumedFrom, stopped.runID)
        XCTAssertEqual(try stale(v2), n - 8)

        let rerun = try StoreFixtures.derive(store, batchSize: 4, deriver: v2)
        XCTAssertEqual(rerun.status, .completed)
        XCTAssertEqual(rerun.resumedFrom, stoppedAgain.runID)
        XCTAssertEqual(rerun.statistics.recordsRead, n - 8)
        XCTAssertEqual(try stale(v2), 0)
        let referenceStore = try SQLiteStore(path: reference)
        try StoreFixtures.derive(referenceStore, batchSize: 4, deriver: v2)
        referenceStore.close()
        StoreInspection.assertEqual(
            try StoreInspection.dump(db), try StoreInspection.dump(reference), "interrupted + rerun vs uninterrupted")
        // A completed run is not resumed: the next one starts afresh (and finds nothing stale).
        let next = try StoreFixtures.derive(store, batchSize: 4, deriver: v2)
        XCTAssertNil(next.resumedFrom)
        XCTAssertEqual(next.statistics.recordsRead, 0)
    }
}
