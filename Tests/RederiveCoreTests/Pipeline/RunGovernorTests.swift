import Foundation
import XCTest

@testable import RederiveCore

/// The between-batches seam: signals, the error budget, the operator's control (read at most
/// once a second), pauses, the shared rate and the batch record, on a scripted clock.
final class RunGovernorTests: XCTestCase {
    /// A store's control, scripted: what it says and what it was asked.
    final class ScriptedControls: RunControls, @unchecked Sendable {
        var workerName: String { "test:1" }
        var rows: [RunControlState] = []
        var reads = 0
        var reserved: [(records: Int, rate: Double)] = []
        var reserveWait = 0.0
        var recorded: [BatchRecord] = []
        /// How many statements recorded batches.
        var recordings = 0
        /// Called at each read (a test lifts the pause from here).
        var onRead: ((Int) -> Void)?

        func controls(forRun runID: Int64) throws(RederiveError) -> [RunControlState] {
            reads += 1
            onRead?(reads)
            return rows
        }
        func allControls() throws(RederiveError) -> [RunControlState] { rows }
        func pause(runID: Int64?, by: String, reason: String?, until: String?) throws(RederiveError) {
            rows = [RunControlState(runID: runID, pausedSince: RunControlState.now(), pausedBy: by, reason: reason)]
        }
        func resume(runID: Int64?) throws(RederiveError) -> Int {
            defer { rows = [] }
            return rows.count
        }
        func setMaxRate(_ rate: Double?, runID: Int64?, by: String) throws(RederiveError) {
            rows = [RunControlState(runID: runID, maxRate: rate, rateSetBy: by)]
        }
        func reserve(records: Int, runID: Int64, maxRate: Double) throws(RederiveError) -> Double {
            reserved.append((records, maxRate))
            return reserveWait
        }
        func recordBatches(_ batches: [BatchRecord]) throws(RederiveError) {
            recordings += 1
            recorded += batches
        }
        func batches(runID: Int64) throws(RederiveError) -> [BatchRecord] { recorded }
        func runStatus(_ runID: Int64) throws(RederiveError) -> String? { "running" }
        func closeControls() {}
    }

    /// A clock that moves only when the governor sleeps or the test says so.
    final class ScriptedClock {
        var now = 100.0
        var slept = 0.0
    }

    private var clock: ScriptedClock!
    private var controls: ScriptedControls!

    override func setUp() {
        clock = ScriptedClock()
        controls = ScriptedControls()
        RunControl.resetStop()
    }

    override func tearDown() { RunControl.resetStop() }

    private func governor(
        _ configure: (inout RunSettings) -> Void = { _ in }, controls: ScriptedControls? = nil, runID: Int64 = 7
    ) -> RunGovernor {
        var settings = RunSettings(batchSize: 100, arguments: "test")
        configure(&settings)
        let clock = clock!
        return RunGovernor(
            settings: settings, controls: controls ?? self.controls, runID: runID, clock: { clock.now },
            sleep: {
                clock.now += $0
                clock.slept += $0
            })
    }

    /// One batch through the governor: handed over, committed, decided.
    @discardableResult
    private func batch(_ governor: RunGovernor, records: Int = 100, work: Double = 0.1) -> RunGovernor.Decision {
        let ticket = governor.handedOver(
            records: records, keys: (1, Int64(records)), readSeconds: work / 2, deriveSeconds: work / 2)
        governor.ledger.committed(ticket, seconds: 0.01)
        return governor.decide(skipped: 0, read: records)
    }

    func testSignalsAndTheErrorBudgetStopTheRunBehindTheGovernor() {
        let plain = governor(controls: nil, runID: 0)
        XCTAssertEqual(batch(plain), .goOn)
        RunControl.requestStop(signal: SIGTERM)
        XCTAssertEqual(batch(plain), .stop(.interrupted, reason: "SIGTERM", exit: nil))
        RunControl.resetStop()
        let budget = governor({ $0.control = RunControl(maxErrors: 2) }, controls: nil, runID: 0)
        _ = budget.handedOver(records: 10, keys: nil, readSeconds: 0, deriveSeconds: 0)
        guard case .stop(.aborted, _, nil) = budget.decide(skipped: 3, read: 10) else {
            return XCTFail("over the budget")
        }
    }

    func testTheControlIsReadAtMostOnceASecond() {
        let g = governor()
        XCTAssertEqual(g.decideFirst(), .goOn)
        XCTAssertEqual(controls.reads, 1)
        for _ in 0..<50 {
            clock.now += 0.01
            XCTAssertEqual(batch(g), .goOn)
        }
        XCTAssertEqual(controls.reads, 1, "50 batches in half a second: no second read")
        clock.now += 0.6
        batch(g)
        XCTAssertEqual(controls.reads, 2)
        XCTAssertTrue(controls.reserved.isEmpty, "no rate: the budget is never asked")
    }

    func testAPauseIsObeyedAfterTheBatchInHandAndWaitsUntilLifted() {
        let g = governor()
        XCTAssertEqual(batch(g), .goOn)
        try? controls.pause(runID: nil, by: "ops@host", reason: "peak", until: nil)
        clock.now += 1
        guard case .pause(let state) = batch(g) else { return XCTFail("paused") }
        XCTAssertEqual(state.pausedBy, "ops@host")
        // Lifted at the fifth read: the wait reads about once a second meanwhile.
        controls.onRead = { [controls] reads in if reads == 5 { controls?.rows = [] } }
        XCTAssertEqual(g.waitOutPause(state), .goOn)
        XCTAssertEqual(clock.slept, 3, accuracy: 0.01)
        g.finish()
        XCTAssertEqual(controls.recorded.count, 2)
        XCTAssertEqual(controls.recorded.last?.waitReason, "paused")
        XCTAssertEqual(controls.recorded.last?.waitedSeconds ?? 0, 3, accuracy: 0.01)
        XCTAssertEqual(controls.recorded.last?.worker, "test:1")
        XCTAssertEqual(controls.recorded.last?.commitSeconds ?? 0, 0.01, accuracy: 1e-9)
    }

    func testAPauseThatEndsByItselfAndASignalWhilePaused() {
        let g = governor()
        let past = RunControlState(pausedSince: "2026-01-01T00:00:00.000Z", pausedUntil: "2026-01-02T00:00:00.000Z")
        controls.rows = [past]
        XCTAssertEqual(g.decideFirst(), .goOn, "a pause whose --until passed holds no one")
        let paused = RunControlState(pausedSince: RunControlState.now(), pausedBy: "ops@host")
        controls.rows = [paused]
        controls.onRead = { _ in RunControl.requestStop(signal: SIGINT) }
        XCTAssertEqual(g.waitOutPause(paused), .stop(.interrupted, reason: "SIGINT", exit: nil))
        g.finish()
        XCTAssertEqual(controls.recorded.map(\.records), [0], "a wait before any batch is a batch of nothing")
        XCTAssertEqual(controls.recorded.first?.waitReason, "paused")
    }

    func testExitWhenPausedStopsWithItsOwnStatus() {
        controls.rows = [RunControlState(pausedSince: RunControlState.now(), pausedBy: "ops@host", reason: "deploy")]
        let g = governor { $0.exitWhenPaused = true }
        guard case .stop(.interrupted, let reason, .paused) = g.decideFirst() else { return XCTFail("exits") }
        XCTAssertTrue(reason.contains("paused since") && reason.contains("deploy"), reason)
        XCTAssertEqual(ExitStatus.paused.rawValue, 9)
    }

    func testTheRateTakesEachBatchFromTheSharedBudgetAndWaitsWhatItSays() {
        controls.reserveWait = 0.25
        controls.rows = [RunControlState(maxRate: 5_000, rateSetBy: "ops@host")]
        let g = governor { $0.maxRate = 2_000 }
        XCTAssertEqual(batch(g, records: 300), .goOn)
        XCTAssertEqual(controls.reserved.count, 1)
        XCTAssertEqual(controls.reserved.first?.records, 300)
        XCTAssertEqual(controls.reserved.first?.rate, 2_000, "the lower of the flag and the control")
        XCTAssertEqual(clock.slept, 0.25, accuracy: 1e-9)
        g.finish()
        XCTAssertEqual(controls.recorded.first?.waitReason, "max-rate")
        XCTAssertEqual(controls.recorded.first?.waitedSeconds ?? 0, 0.25, accuracy: 1e-9)
    }

    func testBatchSecondsSizesTheNextBatchFromTheCommittedOnes() {
        let g = governor { $0.batchSeconds = 0.5 }
        XCTAssertEqual(g.batchSize, 100)
        // Read and derived in 1.5 s: the next batch is sized at once (33 records make half a second).
        let ticket = g.handedOver(records: 100, keys: nil, readSeconds: 0.5, deriveSeconds: 1)
        XCTAssertEqual(g.batchSize, 33, "sized when handed over, not only once committed")
        // Committed in 0.5 s more: 100 records in 2 s of work, 25 make half a second.
        g.ledger.committed(ticket, seconds: 0.5)
        XCTAssertEqual(g.batchSize, 25)
        XCTAssertNil(governor().batchSize, "without --batch-seconds, batches keep --batch-size")
    }

    func testAnUnthrottledRunPaysOneReadAndOneRecordingASecondWhateverItsBatchRate() {
        // 400 batches of 20 ms (50 a second) for 8 s, no pause, no rate, no health: the store is
        // asked once a second for the control and once a second (and at the end) to keep the
        // batches, never per batch; the rate budget never.
        let g = governor()
        XCTAssertEqual(g.decideFirst(), .goOn)
        for _ in 0..<400 {
            clock.now += 0.02
            XCTAssertEqual(batch(g), .goOn)
        }
        g.finish()
        XCTAssertEqual(controls.recorded.count, 400)
        XCTAssertLessThanOrEqual(controls.reads, 9, "one read a second")
        XCTAssertLessThanOrEqual(controls.recordings, 9, "one statement a second and one at the end")
        XCTAssertTrue(controls.reserved.isEmpty)
        XCTAssertEqual(clock.slept, 0, "nothing waited")
    }

    func testBatchesAreRecordedAtMostOnceASecondAndAllAtTheEnd() {
        let g = governor()
        for _ in 0..<5 { batch(g) }
        XCTAssertTrue(controls.recorded.isEmpty, "within the first second nothing is written")
        clock.now += 1.5
        batch(g)
        XCTAssertEqual(controls.recorded.count, 6, "one statement for the six")
        batch(g)
        g.finish()
        XCTAssertEqual(controls.recorded.count, 7)
        XCTAssertEqual(g.totals.batches, 7)
        XCTAssertEqual(g.totals.records, 700)
    }
}
