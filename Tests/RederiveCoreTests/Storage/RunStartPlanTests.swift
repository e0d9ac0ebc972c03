import XCTest

@testable import RederiveCore

/// The run-start decision table, every row, without an engine.
final class RunStartPlanTests: XCTestCase {
    private func run(_ status: RunStatus, id: Int64 = 7) -> LatestRun {
        var saved = RunStatistics()
        (saved.recordsRead, saved.decodedBytes) = (40, 800)
        return LatestRun(id: id, status: status.rawValue, checkpointSeq: 30, upperBoundSeq: 90, saved: saved)
    }

    private func request(_ continuation: RunStartRequest.Continuation, onlyJoin: Bool = false) -> RunStartRequest {
        RunStartRequest(
            command: "derive", arguments: "derive", resumeKey: "k", deriver: SummaryDeriver(),
            continuation: continuation, onlyJoin: onlyJoin)
    }

    func testEveryRowOfTheTable() {
        let all: [RunStartRequest.Continuation] = [.asNewRun, .asSameRun, .asSameRunWhereShared]
        for continuation in all {
            for shares in [false, true] {
                let r = request(continuation)
                XCTAssertEqual(RunStartPlan.decide(r, latest: nil, sharesRuns: shares), .begin(continuing: nil))
                XCTAssertEqual(
                    RunStartPlan.decide(r, latest: run(.failed), sharesRuns: shares), .begin(continuing: nil))
                XCTAssertEqual(
                    RunStartPlan.decide(r, latest: run(.completed), sharesRuns: shares), .begin(continuing: nil))
                XCTAssertEqual(
                    RunStartPlan.decide(
                        request(continuation, onlyJoin: true), latest: run(.completed), sharesRuns: shares),
                    .alreadyCompleted(7))
            }
        }
        for status in [RunStatus.running, .interrupted, .aborted, .crashed] {
            let latest = run(status)
            let running = status == .running
            XCTAssertEqual(
                RunStartPlan.decide(request(.asNewRun), latest: latest, sharesRuns: true), .begin(continuing: latest))
            XCTAssertEqual(
                RunStartPlan.decide(request(.asSameRun), latest: latest, sharesRuns: false),
                .reopen(latest, joined: false))
            XCTAssertEqual(
                RunStartPlan.decide(request(.asSameRun), latest: latest, sharesRuns: true),
                .reopen(latest, joined: running))
            XCTAssertEqual(
                RunStartPlan.decide(request(.asSameRunWhereShared), latest: latest, sharesRuns: false),
                .begin(continuing: latest), "one writer: the derive continues it as a new run")
            XCTAssertEqual(
                RunStartPlan.decide(request(.asSameRunWhereShared), latest: latest, sharesRuns: true),
                .reopen(latest, joined: running), "shared: the derive's run is one run")
        }
    }

    func testWhatEachPlanStartsAndWrites() {
        let begun = RunStartPlan.begin(continuing: run(.running)).start(newRunID: 8)
        XCTAssertEqual([begun.runID, begun.resumedFrom, begun.checkpointSeq, begun.upperBoundSeq], [8, 7, 30, 90])
        XCTAssertNil(begun.carried)
        XCTAssertEqual(RunStartPlan.begin(continuing: run(.running)).marksCrashed, 7)
        XCTAssertNil(RunStartPlan.begin(continuing: run(.interrupted)).marksCrashed)

        let reopened = RunStartPlan.reopen(run(.interrupted), joined: false)
        XCTAssertEqual(reopened.reopens, 7)
        XCTAssertFalse(reopened.insertsRun)
        let start = reopened.start()
        XCTAssertEqual([start.runID, start.resumedFrom, start.checkpointSeq, start.upperBoundSeq], [7, 7, 30, 90])
        XCTAssertEqual(start.carried?.recordsRead, 40)
        XCTAssertEqual(start.carried?.carriedRecords, 40)
        XCTAssertEqual(start.carried?.carriedBytes, 800)

        let joined = RunStartPlan.reopen(run(.running), joined: true).start()
        XCTAssertEqual(joined.runID, 7)
        XCTAssertNil(joined.resumedFrom)
        XCTAssertNil(joined.checkpointSeq)
        XCTAssertNil(joined.carried, "a joining process reports its own share")

        let done = RunStartPlan.alreadyCompleted(7).start()
        XCTAssertTrue(done.alreadyCompleted)
        XCTAssertEqual(done.runID, 7)
    }
}
