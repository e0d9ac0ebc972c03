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
        /// Called at each read (a test lets the standby catch up from here).
        var onRead: ((Int) -> Void)?
        func readHealth() throws(RederiveError) -> HealthReading {
            reads += 1
            onRead?(reads)
            return HealthReading([.standbyLagBytes: .measured(lag)])
        }
    }

    private var now = 100.0
    private var slept = 0.0

    override func setUp() { RunControl.resetStop() }
    override func tearDown() { RunControl.resetStop() }

    private func governor(_ health: ScriptedHealth, mode: ThrottleMode = .on) -> RunGovernor {
        var settings = RunSettings(batchSize: 100, arguments: "test")
        settings.health = HealthPolicy(
            limits: HealthLimits.defaults.withMaxStandbyLag(64_000_000), mode: mode, greenHoldSeconds: 5)
        return RunGovernor(
            settings: settings, controls: RunGovernorTests.ScriptedControls(), runID: 7, health: health,
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
}
