import XCTest

@testable import RederiveCore

/// The graded response with hysteresis, fed scripted readings and times (no clock, no server).
final class HealthPolicyTests: XCTestCase {
    private func lag(_ bytes: Double) -> HealthReading { HealthReading([.standbyLagBytes: .measured(bytes)]) }

    private let limits = HealthLimits.defaults.withMaxStandbyLag(64_000_000)  // yellow 32 MB

    func testGreenIsFullSpeedAndSaysNothing() {
        var policy = HealthPolicy(limits: limits)
        let a = policy.assess(lag(1_000_000), now: 0)
        XCTAssertEqual(a.decision, .proceed)
        XCTAssertNil(a.change, "nothing to say while all is green")
    }

    func testYellowShrinksBatchesAndPausesInProportionToHowFarIntoYellow() {
        var policy = HealthPolicy(limits: limits)
        let low = policy.assess(lag(32_000_000), now: 0).decision
        XCTAssertEqual(low.grade, .yellow)
        XCTAssertEqual(low.batchSecondsFactor, 0.75, accuracy: 1e-9)
        XCTAssertEqual(low.pauseRatio, 0.5, accuracy: 1e-9)
        XCTAssertFalse(low.waits)
        let high = policy.assess(lag(60_000_000), now: 1).decision
        XCTAssertLessThan(high.batchSecondsFactor, low.batchSecondsFactor)
        XCTAssertGreaterThan(high.pauseRatio, low.pauseRatio)
        XCTAssertEqual(high.pauseRatio, 0.5 + 0.5 * (28.0 / 32.0), accuracy: 1e-9)
        XCTAssertEqual(high.reasons, ["standby replay lag 60.0 MB >= yellow 32.0 MB"])
    }

    func testRedWaitsUntilEveryLimitStaysGreenForTheHoldTime() {
        var policy = HealthPolicy(limits: limits, greenHoldSeconds: 30)
        let red = policy.assess(lag(120_000_000), now: 0)
        XCTAssertTrue(red.decision.waits)
        XCTAssertEqual(
            red.change, "health red, waiting with claims given back: standby replay lag 120.0 MB >= red 64.0 MB")
        // Back under red but still yellow: still waiting (hysteresis).
        XCTAssertTrue(policy.assess(lag(40_000_000), now: 5).decision.waits)
        // Green, but not yet for 30 s.
        XCTAssertTrue(policy.assess(lag(0), now: 10).decision.waits)
        XCTAssertTrue(policy.assess(lag(0), now: 39).decision.waits)
        // Yellow again resets the hold.
        XCTAssertTrue(policy.assess(lag(33_000_000), now: 40).decision.waits)
        XCTAssertTrue(policy.assess(lag(0), now: 41).decision.waits)
        XCTAssertTrue(policy.assess(lag(0), now: 70).decision.waits)
        let free = policy.assess(lag(0), now: 71)
        XCTAssertEqual(free.decision, .proceed)
        XCTAssertEqual(free.change, "health green: full speed again")
    }

    func testEachChangeIsLoggedOnceNotEveryBatch() {
        var policy = HealthPolicy(limits: limits)
        let lines = [10, 40, 41, 42, 80, 81, 20].enumerated().compactMap { index, mb in
            policy.assess(lag(Double(mb) * 1_000_000), now: Double(index)).change
        }
        // Yellow once, red once, and once more when the signals fall back and the hold starts;
        // the batches in between say nothing.
        XCTAssertEqual(lines.count, 3, "\(lines)")
        XCTAssertTrue(lines[2].contains("green for 0 of 30 s before going on"), lines[2])
    }

    func testObserveModeActsOnNothingAndSaysWhatItWouldDo() {
        var policy = HealthPolicy(limits: limits, mode: .observe)
        let a = policy.assess(lag(120_000_000), now: 0)
        XCTAssertEqual(a.decision, .proceed)
        XCTAssertTrue(a.wouldBe.waits)
        XCTAssertEqual(a.change, "would wait: standby replay lag 120.0 MB >= red 64.0 MB")
        let b = policy.assess(lag(40_000_000), now: 1)
        XCTAssertEqual(b.decision, .proceed)
    }

    func testAnUnmeasurableSignalFollowsItsPolicyAndIsReportedOnce() {
        let blind = HealthReading([.standbyLagBytes: .unmeasurable("the role needs pg_monitor")])
        var going = HealthPolicy(limits: limits, unmeasurable: .continue)
        let first = going.assess(blind, now: 0)
        XCTAssertEqual(first.decision, .proceed)
        XCTAssertEqual(first.unmeasurableNotices.count, 1)
        XCTAssertTrue(first.unmeasurableNotices[0].contains("the role needs pg_monitor"))
        XCTAssertEqual(going.assess(blind, now: 1000).unmeasurableNotices, [])
        XCTAssertEqual(going.assess(blind, now: 1000).decision, .proceed)

        var waiting = HealthPolicy(limits: limits, unmeasurable: .wait(afterSeconds: 60))
        XCTAssertFalse(waiting.assess(blind, now: 0).decision.waits)
        XCTAssertFalse(waiting.assess(blind, now: 59).decision.waits)
        let late = waiting.assess(blind, now: 60)
        XCTAssertTrue(late.decision.waits)
        XCTAssertTrue(late.decision.reasons[0].contains("cannot be measured"), "\(late.decision.reasons)")
    }

    func testSizesAndLimitsParseAsOperatorsWriteThem() throws {
        XCTAssertEqual(ByteSize.parse("64MB"), 64_000_000)
        XCTAssertEqual(ByteSize.parse("1.5 GB"), 1_500_000_000)
        XCTAssertEqual(ByteSize.parse("512kb"), 512_000)
        XCTAssertEqual(ByteSize.parse("1MiB"), 1_048_576)
        XCTAssertEqual(ByteSize.parse("4096"), 4096)
        for bad in ["", "MB", "-1MB", "1e999", "12 parsecs", "nan"] { XCTAssertNil(ByteSize.parse(bad), bad) }
        let limits = try HealthLimits.defaults.applying("dead_rows=1000,5000").applying("standby_lag_bytes=1MB,2MB")
        XCTAssertEqual(limits[.deadRows], HealthLimit(yellow: 1000, red: 5000))
        XCTAssertEqual(limits[.standbyLagBytes], HealthLimit(yellow: 1_000_000, red: 2_000_000))
        for bad in ["dead_rows", "nope=1,2", "dead_rows=5,1", "dead_rows=1", "dead_rows=x,2", "standby_lag_bytes=1,zz"]
        {
            XCTAssertThrowsError(try HealthLimits.defaults.applying(bad), bad)
        }
    }

    func testTheReportNamesEachSignalWithItsLimits() {
        let reading = HealthReading([
            .standbyLagBytes: .measured(100_000_000), .oldestXminAge: .unmeasurable("the role needs pg_monitor"),
        ])
        let report = HealthReport(store: "postgres://u@h/db", reading: reading, policy: HealthPolicy(limits: limits))
        XCTAssertEqual(report.decision.grade, .red)
        XCTAssertTrue(report.text().contains("standby_lag_bytes"), report.text())
        XCTAssertTrue(report.text().contains("unmeasurable (the role needs pg_monitor)"), report.text())
        XCTAssertTrue(report.json().contains("\"signal\":\"standby_lag_bytes\",\"value\":100000000"), report.json())
        XCTAssertTrue(report.json().contains("\"unmeasurable\":\"the role needs pg_monitor\""), report.json())
    }
}
