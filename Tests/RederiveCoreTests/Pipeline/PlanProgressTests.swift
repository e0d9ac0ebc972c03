import XCTest
@testable import RederiveCore

/// The rules a repeated plan apply checks the store against: where the apply stands, and
/// what of a record counts as done by the plan, as it was, or changed outside it.
final class PlanProgressTests: XCTestCase {
    private func run(_ id: Int64, _ status: RunStatus) -> RecordedRun {
        RecordedRun(id: id, status: status.rawValue)
    }

    func testStateFollowsTheRunsRecordedUnderThePlansKey() {
        XCTAssertEqual(PlanProgress.state(of: []), .fresh)
        XCTAssertEqual(PlanProgress.state(of: [run(4, .running)]), .unfinished(runs: [4]))
        XCTAssertEqual(PlanProgress.state(of: [run(7, .interrupted), run(4, .failed)]), .unfinished(runs: [4, 7]))
        XCTAssertEqual(PlanProgress.state(of: [run(4, .failed), run(7, .completed)]), .applied(by: 7))
    }

    func testWhatThePlansRunsWroteAsPlannedIsDoneOverWhatItReplaced() {
        let progress = PlanProgress(runs: [run(5, .crashed)], madeAfterRun: 3)
        let before = ReplacedSummary(seq: 10, run: 5, version: 0, json: "{\"old\":10}")
        XCTAssertEqual(progress.verdict(storedRun: 5, planned: true, history: [before]), .done(before: before))
        XCTAssertEqual(
            progress.verdict(storedRun: 5, planned: true, history: []), .done(before: nil), "a first summary")
        // Written by the plan's run but not what the deriver makes of it now: not done.
        XCTAssertEqual(progress.verdict(storedRun: 5, planned: false, history: [before]), .asStored)
    }

    func testOtherRunsAfterThePlanChangedTheRecordOutsideIt() {
        let progress = PlanProgress(runs: [run(5, .crashed)], madeAfterRun: 3)
        XCTAssertEqual(progress.verdict(storedRun: 6, planned: true, history: []), .changedOutside(run: 6))
        // A revert after the plan restores an old writer but leaves its own history row.
        let reverted = ReplacedSummary(seq: 10, run: 8, version: 1, json: "{}")
        XCTAssertEqual(progress.verdict(storedRun: 2, planned: false, history: [reverted]), .changedOutside(run: 8))
        // Runs up to the plan are what the plan saw.
        XCTAssertEqual(progress.verdict(storedRun: 3, planned: false, history: []), .asStored)
        XCTAssertEqual(progress.verdict(storedRun: nil, planned: false, history: []), .asStored)
    }

    func testAPlanThatDoesNotSayItsLastRunCountsRunsSinceItsFirstApply() {
        XCTAssertEqual(PlanProgress(runs: [run(9, .running), run(12, .crashed)], madeAfterRun: nil).madeAfterRun, 8)
        XCTAssertEqual(PlanProgress(runs: [], madeAfterRun: nil).madeAfterRun, Int64.max - 1)
    }

    func testTheRefusalNamesTheRecordsChangedOutsideThePlan() throws {
        var now = ChangeTally()
        now.counts.rewrites = 9
        let plan = DerivePlan(
            format: 1, createdAt: "2026-11-24T07:00:00Z",
            store: .init(path: "a.sqlite", id: "s1", highWaterMark: 12, lastRunID: 3), summaryVersion: 1,
            fingerprint: "f", selection: "stale", all: false, ids: nil, since: nil, retryFailed: false,
            allowDowngrade: false,
            counts: .init(examined: 12, rewrites: 10, additions: 0, failing: 0, unchanged: 2, newer: 0),
            fieldChanges: [:], digest: "0")
        XCTAssertFalse(PlanProgress.matches(now, plan))
        let text = PlanProgress.refusal(now, plan, outside: ["A", "B"], outsideCount: 3, resumed: true)
        XCTAssertTrue(text.hasPrefix("the store changed since the plan: 9 rewrites"), text)
        XCTAssertTrue(text.contains("Changed outside the plan: 3 records, A, B and 1 more"), text)
        XCTAssertTrue(text.hasSuffix("Nothing was written"), text)
        XCTAssertTrue(plan.runKey.hasPrefix("plan:0:s1:"), plan.runKey)
    }
}
