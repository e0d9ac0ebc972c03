import Foundation
import XCTest

@testable import RederiveCore

/// The rules the core renders once for every engine: where a run starts (`RunStartPlan`) and
/// which records a derive selects (`SelectionPredicate`). Each runs on every engine.
extension StoreContract {
    /// A start that may only join (a plan's apply, a worker of `--processes N`) begins nothing
    /// once the latest run under its key completed, and says which run did; a plain start
    /// under that key begins a new run, and an unfinished run is still joined or continued.
    func contractRunStartUnlessCompleted() throws {
        let store = try open()
        let deriver = SummaryDeriver()
        func start(_ key: String?, unlessCompleted: Bool, rejoin: Bool = true) throws -> RunStart {
            try store.beginRun(
                RunStartRequest(
                    command: "derive", pipeline: nil, arguments: "derive", resumeKey: key, deriver: deriver,
                    allowDowngrade: false, continuation: rejoin ? .asSameRun : .asNewRun, onlyJoin: unlessCompleted))
        }
        let first = try start("plan:k", unlessCompleted: true)
        XCTAssertFalse(first.alreadyCompleted, "no run yet under the key: one is begun")
        let joined = try start("plan:k", unlessCompleted: true)
        XCTAssertFalse(joined.alreadyCompleted)
        XCTAssertEqual(joined.runID, first.runID, "an unfinished run is joined")
        try store.finishRun(first.runID, status: .completed, exitStatus: 0, statistics: RunStatistics())
        let runsBefore = try store.runs(resumeKey: "plan:k")
        let late = try start("plan:k", unlessCompleted: true)
        XCTAssertTrue(late.alreadyCompleted, "the key's run completed: nothing to join")
        XCTAssertEqual(late.runID, first.runID)
        XCTAssertEqual(try store.runs(resumeKey: "plan:k"), runsBefore, "no run recorded")
        let again = try start("plan:k", unlessCompleted: false, rejoin: false)
        XCTAssertFalse(again.alreadyCompleted)
        XCTAssertNotEqual(again.runID, first.runID, "a plain start under the key begins a new run")
    }

    /// A run reopened under its own id (a plan's apply, or a derive where processes share
    /// runs, after an interruption) goes on from its checkpoint, bound and saved totals on
    /// every engine (PostgreSQL used to reopen it with neither checkpoint nor totals); a
    /// completed run is never reopened.
    func contractRunStartReopensWithSavedTotals() throws {
        let store = try open()
        let deriver = SummaryDeriver()
        let request = RunStartRequest(
            command: "derive", arguments: "derive", resumeKey: "plan:x", deriver: deriver, continuation: .asSameRun)
        let first = try store.beginRun(request)
        try store.setUpperBound(runID: first.runID, upperBoundSeq: 900)
        var saved = RunStatistics()
        (saved.recordsRead, saved.recordsDone, saved.recordsUnchanged, saved.decodedBytes) = (300, 270, 10, 9000)
        try store.finishRun(first.runID, status: .interrupted, exitStatus: 130, statistics: saved)
        try execute("UPDATE run SET checkpoint_seq = 310 WHERE id = \(first.runID)")
        let again = try store.beginRun(request)
        XCTAssertEqual(again.runID, first.runID, "reopened, not a new run")
        XCTAssertEqual(again.resumedFrom, first.runID)
        XCTAssertEqual(again.checkpointSeq, 310)
        XCTAssertEqual(again.upperBoundSeq, 900)
        let carried = try XCTUnwrap(again.carried, "the saved totals are carried")
        XCTAssertEqual(
            [carried.recordsRead, carried.recordsDone, carried.recordsUnchanged, carried.carriedRecords],
            [300, 270, 10, 300])
        XCTAssertEqual([carried.decodedBytes, carried.carriedBytes], [9000, 9000])
        XCTAssertEqual(try store.status(deriver: deriver, runLimit: 1).recentRuns.first?.status, "running")
        try store.finishRun(first.runID, status: .completed, exitStatus: 0, statistics: saved)
        let next = try store.beginRun(request)
        XCTAssertNotEqual(next.runID, first.runID, "a completed run is never reopened")
        XCTAssertNil(next.resumedFrom)
        XCTAssertNil(next.carried)
    }

    /// A derive's start on a run left `running` follows `RunStartPlan`: where the engine's
    /// processes share runs (it claims ranges) the run is joined as it is; elsewhere (one
    /// writer) it crashed, and a new run continues it from its checkpoint. Any other command
    /// continues it as a new run everywhere.
    func contractRunStartWhereRunsAreShared() throws {
        let store = try open()
        let deriver = SummaryDeriver()
        let shares = store.rangeClaims != nil
        let derive = RunStartRequest(
            command: "derive", arguments: "derive", resumeKey: "derive:k", deriver: deriver,
            continuation: .asSameRunWhereShared)
        let first = try store.beginRun(derive)
        try store.setUpperBound(runID: first.runID, upperBoundSeq: 50)
        try execute("UPDATE run SET checkpoint_seq = 20 WHERE id = \(first.runID)")
        let second = try store.beginRun(derive)
        if shares {
            XCTAssertEqual(second.runID, first.runID, "joined")
            XCTAssertNil(second.resumedFrom, "joined, not continued")
            XCTAssertNil(second.carried)
            XCTAssertEqual(second.upperBoundSeq, 50)
        } else {
            XCTAssertNotEqual(second.runID, first.runID)
            XCTAssertEqual(second.resumedFrom, first.runID)
            XCTAssertEqual(second.checkpointSeq, 20)
            XCTAssertEqual(second.upperBoundSeq, 50)
            XCTAssertEqual(try store.runs(resumeKey: "derive:k").map(\.status), ["crashed", "running"])
        }
        let importRequest = RunStartRequest(
            command: "import", arguments: "import", resumeKey: "import:k", deriver: deriver)
        let imported = try store.beginRun(importRequest)
        let again = try store.beginRun(importRequest)
        XCTAssertNotEqual(again.runID, imported.runID, "an import continues as a new run on every engine")
        XCTAssertEqual(again.resumedFrom, imported.runID)
        XCTAssertEqual(try store.runs(resumeKey: "import:k").map(\.status), ["crashed", "running"])
    }

    /// The selection rule (`SelectionPredicate`) selects alike on every engine: `since` by
    /// instant (not text: "…:00Z" sorts after "…:00.250Z"; a zone offset is converted),
    /// `ids` in any UUID spelling, retry-failed with the runs after `writtenAfterRun`.
    func contractSelectionPredicate() throws {
        let store = try open()
        try importBatch(store, Self.fixtureItems())
        let deriver = SummaryDeriver()
        let rooms = try store.fetchRooms(
            DeriveSelection(all: true), deriver: deriver, allowDowngrade: false, after: 0, upTo: store.maxSeq(),
            limit: 100)
        let keys = rooms.map(\.seq)
        try execute("UPDATE record SET stored_at = '2026-01-01T00:00:00Z'")
        try execute("UPDATE record SET stored_at = '2026-11-01T00:00:00Z' WHERE seq = \(keys[0])")
        try execute("UPDATE record SET stored_at = '2026-11-01T00:00:00.500Z' WHERE seq = \(keys[1])")
        try execute("UPDATE record SET stored_at = '2026-11-01T01:00:00+02:00' WHERE seq = \(keys[2])")
        try execute("UPDATE record SET stored_at = '2026-11-01T03:00:00+02:00' WHERE seq = \(keys[3])")
        func selected(_ selection: DeriveSelection, writtenAfter run: Int64? = nil) throws -> [Int64] {
            var selection = selection
            selection.writtenAfterRun = run
            let max = try store.maxSeq()
            let seqs = try store.fetchRooms(
                selection, deriver: deriver, allowDowngrade: false, after: 0, upTo: max, limit: 100
            ).map(\.seq)
            XCTAssertEqual(
                try store.countSelected(selection, deriver: deriver, allowDowngrade: false, after: 0, upTo: max),
                seqs.count)
            return seqs
        }
        XCTAssertEqual(try selected(DeriveSelection(all: true, since: "2026-11-01T00:00:00.250Z")), [keys[1], keys[3]])
        XCTAssertEqual(try selected(DeriveSelection(all: true, since: "2026-11-01")), [keys[0], keys[1], keys[3]])
        let spelled = [rooms[4].id.lowercased(), rooms[6].id, "not-a-stored-id"]
        XCTAssertEqual(try selected(DeriveSelection(all: true, ids: spelled)), [keys[4], keys[6]])
        XCTAssertEqual(try selected(DeriveSelection(ids: spelled)), [], "both fresh: nothing stale among them")
        XCTAssertEqual(try selected(DeriveSelection(all: true, ids: [])), [])

        let failed = RecordIssue(
            file: rooms[5].sourceFile, line: 1, id: rooms[5].id, stage: .decode, code: .invalidJSON, message: "x")
        let parsed = RecordIssue(
            file: rooms[7].sourceFile, line: 2, id: rooms[7].id, stage: .parse, code: .invalidJSON, message: "y")
        try importBatch(store, [.issue(failed), .issue(parsed)])
        XCTAssertEqual(try selected(DeriveSelection(retryFailed: true)), [keys[5]], "decode and derive failures only")
        let lastRun = try store.lastRunID()
        try execute("UPDATE summary SET run_id = \(lastRun + 1) WHERE record_seq = \(keys[8])")
        XCTAssertEqual(try selected(DeriveSelection(retryFailed: true), writtenAfter: lastRun), [keys[5], keys[8]])
        XCTAssertEqual(try selected(DeriveSelection(), writtenAfter: lastRun), [keys[8]], "fresh, but written after")
        XCTAssertEqual(try selected(DeriveSelection()), [])
    }
}
