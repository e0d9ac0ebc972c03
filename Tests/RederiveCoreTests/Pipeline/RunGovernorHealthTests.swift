import Foundation
import XCTest

@testable import RederiveCore

/// The governor and the server's health (issue 34), on a scripted clock and a scripted
/// reading: yellow shrinks the next batch and pauses for a share of the last one's time, red
/// waits (claims given back) until the hold has passed, observe mode changes nothing.
final class RunGovernorHealthTests: XCTestCase {
    /// A server whose replay lag the test sets; counts reads.
    final class ScriptedHealth: StoreHealthReading {
        var lag = 0.0
        var reads = 0
        /// Whether a standby is connected (its lag can grow with the run's writes).
        var standby = false
        /// Called at each read (a test lets the standby catch up from here).
        var onRead: ((Int) -> Void)?
        func readHealth() throws(RederiveError) -> HealthReading {
            reads += 1
            onRead?(reads)
            return HealthReading([.standbyLagBytes: .measured(lag)], trailing: standby ? [.standbyLagBytes] : [])
        }
    }

    private var now = 100.0
    private var slept = 0.0
    private var controls = RunGovernorTests.ScriptedControls()

    override func setUp() { RunControl.resetStop() }
    override func tearDown() { RunControl.resetStop() }

    private func governor(_ health: ScriptedHealth, mode: ThrottleMode = .on) -> RunGovernor {
        var settings = RunSettings(batchSize: 100, arguments: "test")
        settings.health = HealthPolicy(
            limits: HealthLimits.defaults.withMaxStandbyLag(64_000_000), mode: mode, greenHoldSeconds: 5)
        return RunGovernor(
            settings: settings, controls: controls, runID: 7, health: health,
            clock: { [unowned self] in now },
            sleep: { [unowned self] in
                now += $0
                slept += $0
            })
    }

    func testYellowShrinksTheNextBatchAndPausesForAShareOfTheLastOnesTime() {
        let health = ScriptedHealth()
        health.lag = 48_000_000  // half way into yellow: level 0.75
        let g = governor(health)
        _ = g.handedOver(records: 100, keys: nil, readSeconds: 0.5, deriveSeconds: 1.5)
        XCTAssertEqual(g.decide(skipped: 0, read: 100), .goOn)
        XCTAssertEqual(slept, 0.75 * 2.0, accuracy: 1e-9, "a pause of level x the batch's 2 s")
        XCTAssertEqual(g.batchSize, Int(100 * (1 - 0.5 * 0.75)), "batches shrink to 1 - 0.5 level")
        XCTAssertEqual(health.reads, 1)
        // Read at most once a second: a batch within the second does not read again.
        health.lag = 0
        now -= slept
        _ = g.handedOver(records: 100, keys: nil, readSeconds: 0, deriveSeconds: 0)
        _ = g.decide(skipped: 0, read: 200)
        XCTAssertEqual(health.reads, 1)
    }

    func testTheHealthReadsTimeIsSummed() {
        let health = ScriptedHealth()
        health.onRead = { [unowned self] _ in now += 0.004 }  // each read takes 4 ms
        let g = governor(health)
        for batch in 1...5 {
            _ = g.handedOver(records: 100, keys: nil, readSeconds: 0.3, deriveSeconds: 0.3)
            now += 0.6
            XCTAssertEqual(g.decide(skipped: 0, read: 100 * batch), .goOn)
        }
        // At most once a second: batches 1, 3 and 5 (0.6 s apart) read.
        XCTAssertEqual(g.healthCost.reads, 3)
        XCTAssertEqual(health.reads, 3)
        XCTAssertEqual(g.healthCost.seconds, 0.012, accuracy: 1e-9)
    }

    func testRedWaitsWithClaimsGivenBackUntilGreenForTheHoldTime() {
        let health = ScriptedHealth()
        health.lag = 100_000_000
        let g = governor(health)
        _ = g.handedOver(records: 100, keys: nil, readSeconds: 0.1, deriveSeconds: 0.1)
        XCTAssertEqual(g.decide(skipped: 0, read: 100), .waitForHealth)
        health.onRead = { reads in if reads == 4 { health.lag = 0 } }
        XCTAssertEqual(g.waitOutHealth(), .goOn)
        // Green from the 4th read, then 5 s of green (one read a second) before going on.
        XCTAssertGreaterThanOrEqual(health.reads, 9)
        XCTAssertEqual(g.batchSize, nil, "full speed again: the fixed batch size")
    }

    func testObserveModeNeitherWaitsNorShrinks() {
        let health = ScriptedHealth()
        health.lag = 100_000_000
        let g = governor(health, mode: .observe)
        _ = g.handedOver(records: 100, keys: nil, readSeconds: 1, deriveSeconds: 1)
        XCTAssertEqual(g.decide(skipped: 0, read: 100), .goOn)
        XCTAssertEqual(slept, 0)
        XCTAssertNil(g.batchSize)
        XCTAssertEqual(health.reads, 1, "observe mode still reads")
    }

    /// Issue 34 #5: the reading at the claim (before the batch is read) and the last one at the
    /// commit go into the batch record, from one read a second: the decision after the batch
    /// reuses the claim's reading instead of reading again.
    func testEachBatchKeepsTheHealthAtItsClaimAndItsCommitFromOneReadASecond() throws {
        let health = ScriptedHealth()
        health.lag = 48_000_000
        let g = governor(health)
        g.claiming()
        let ticket = g.handedOver(records: 100, keys: nil, readSeconds: 0.1, deriveSeconds: 0.1)
        g.ledger.committed(ticket, seconds: 0.1)
        XCTAssertEqual(g.decide(skipped: 0, read: 100), .goOn)
        XCTAssertEqual(health.reads, 1, "the claim's reading serves the decision within the second")
        g.finish()
        let record = try XCTUnwrap(controls.recorded.first)
        let claim = try XCTUnwrap(record.claimHealth)
        XCTAssertEqual(claim.grade, "yellow")
        XCTAssertEqual(
            claim.signals,
            [
                .init(
                    signal: "standby_lag_bytes", value: 48_000_000, grade: "yellow", yellow: 32_000_000, red: 64_000_000
                )
            ])
        let commit = try XCTUnwrap(record.commitHealth)
        XCTAssertEqual(commit.signals, [.init(signal: "standby_lag_bytes", value: 48_000_000, grade: "yellow")])
        XCTAssertGreaterThanOrEqual(commit.age, 0)
        XCTAssertEqual(record.waitReason, "health: standby replay lag 48.0 MB >= yellow 32.0 MB", "the yellow pause")
        // A second later the next claim reads again, and keeps what it read.
        now += 1
        health.lag = 0
        g.claiming()
        g.ledger.committed(g.handedOver(records: 100, keys: nil, readSeconds: 0.1, deriveSeconds: 0.1), seconds: 0.1)
        XCTAssertEqual(health.reads, 2)
        g.finish()
        XCTAssertEqual(controls.recorded.last?.claimHealth?.grade, "green")
        XCTAssertEqual(controls.recorded.last?.claimHealth?["standby_lag_bytes"], 0)
    }

    /// Observe mode keeps with each batch what it would have done, and acts on nothing.
    func testObserveModeKeepsWhatItWouldDoAsTheBatchsReason() throws {
        let health = ScriptedHealth()
        health.lag = 100_000_000
        let g = governor(health, mode: .observe)
        g.claiming()
        let ticket = g.handedOver(records: 100, keys: nil, readSeconds: 1, deriveSeconds: 1)
        g.ledger.committed(ticket, seconds: 0.1)
        XCTAssertEqual(g.decide(skipped: 0, read: 100), .goOn)
        g.finish()
        let record = try XCTUnwrap(controls.recorded.first)
        XCTAssertEqual(record.waitReason, "would wait: health: standby replay lag 100.0 MB >= red 64.0 MB")
        XCTAssertEqual(record.waitedSeconds, 0)
        XCTAssertEqual(record.claimHealth?.grade, "red", "the grade `on` would act on")
        // After a wait of the rate budget's, both reasons are kept.
        controls.reserveWait = 0.5
        controls.rows = [RunControlState(runID: 7, maxRate: 100)]
        now += 1
        g.claiming()
        g.ledger.committed(g.handedOver(records: 100, keys: nil, readSeconds: 1, deriveSeconds: 1), seconds: 0.1)
        XCTAssertEqual(g.decide(skipped: 0, read: 200), .goOn)
        g.finish()
        XCTAssertEqual(
            controls.recorded.last?.waitReason,
            "max-rate; would wait: health: standby replay lag 100.0 MB >= red 64.0 MB")
        let state = try XCTUnwrap(g.throttle)
        XCTAssertEqual(state.mode, "observe")
        XCTAssertTrue(state.waiting, "would wait")
        XCTAssertEqual(state.healthWaitedSeconds, 0)
    }

    /// The throttle's state for the metrics file: while red it names the signal and the reason,
    /// and counts the seconds waited for health; green again afterwards.
    func testTheThrottlesStateNamesTheSignalAndCountsTheSecondsWaited() throws {
        let health = ScriptedHealth()
        health.lag = 100_000_000
        let g = governor(health)
        XCTAssertNil(g.throttle?.lastReading, "nothing read yet")
        _ = g.handedOver(records: 100, keys: nil, readSeconds: 0.1, deriveSeconds: 0.1)
        XCTAssertEqual(g.decide(skipped: 0, read: 100), .waitForHealth)
        let red = try XCTUnwrap(g.throttle)
        XCTAssertEqual(red.grade, "red")
        XCTAssertEqual(red.gradeValue, 2)
        XCTAssertTrue(red.waiting)
        XCTAssertEqual(red.signal, "standby_lag_bytes")
        XCTAssertEqual(red.reason, "standby replay lag 100.0 MB >= red 64.0 MB")
        XCTAssertEqual(red.lastReading?["standby_lag_bytes"], 100_000_000)
        health.onRead = { reads in if reads == 3 { health.lag = 0 } }
        XCTAssertEqual(g.waitOutHealth(), .goOn)
        let green = try XCTUnwrap(g.throttle)
        XCTAssertEqual(green.grade, "green")
        XCTAssertFalse(green.waiting)
        XCTAssertNil(green.signal)
        XCTAssertEqual(green.healthWaitedSeconds, slept, accuracy: 1e-9, "every second slept was for health")
        XCTAssertGreaterThan(green.healthWaitedSeconds, 5, "the 5 s hold included")
    }

    /// With a standby connected, the run reads before its first batch and goes at half speed (half
    /// the batch, a pause of the batch's whole time) until the next reading shows how fast the
    /// lag grows; the pauses are taken out of the interval the slope is measured over, and the
    /// projection reaches a batch past the next reading.
    func testWithAStandbyTheFirstSecondGoesAtHalfSpeedAndTheNextReadingProjects() throws {
        let health = ScriptedHealth()
        health.standby = true
        let g = governor(health)
        g.claiming()
        XCTAssertEqual(health.reads, 1, "read before the first batch")
        g.ledger.committed(g.handedOver(records: 100, keys: nil, readSeconds: 0.1, deriveSeconds: 0.1), seconds: 0.1)
        XCTAssertEqual(g.decide(skipped: 0, read: 100), .goOn)
        XCTAssertEqual(slept, 0.3, accuracy: 1e-9, "a pause of the batch's read, derive and commit")
        XCTAssertEqual(g.batchSize, 50)
        // A second after the first reading, 0.3 s of it paused: 14 MB in 0.7 s of writing is
        // +20 MB/s, so 14 MB + 20 MB/s x (1 s + the last batch's 0.3 s) = 40 MB when the next
        // reading can act: past the red 64 MB's yellow (32 MB), yellow now.
        now += 0.7
        health.lag = 14_000_000
        g.ledger.committed(g.handedOver(records: 50, keys: nil, readSeconds: 0.1, deriveSeconds: 0.1), seconds: 0.1)
        XCTAssertEqual(g.decide(skipped: 0, read: 150), .goOn)
        XCTAssertEqual(health.reads, 2)
        let state = try XCTUnwrap(g.throttle)
        XCTAssertEqual(state.grade, "yellow")
        XCTAssertEqual(
            state.reason, "standby replay lag 14.0 MB, projected 40.0 MB in 1.3 s (+20.0 MB/s) >= yellow 32.0 MB")
    }

    /// A run that watches no health keeps none and has no throttle state.
    func testWithTheThrottleOffNothingIsKept() throws {
        let settings = RunSettings(batchSize: 100, arguments: "test")
        let g = RunGovernor(
            settings: settings, controls: controls, runID: 7, health: ScriptedHealth(), clock: { 0 }, sleep: { _ in })
        g.claiming()
        g.ledger.committed(g.handedOver(records: 1, keys: nil, readSeconds: 0, deriveSeconds: 0), seconds: 0)
        g.finish()
        XCTAssertNil(g.throttle)
        XCTAssertNil(controls.recorded.first?.claimHealth)
        XCTAssertNil(controls.recorded.first?.commitHealth)
    }
}
