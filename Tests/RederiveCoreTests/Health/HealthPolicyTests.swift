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

    // MARK: - Where a trailing signal will be by the next reading

    private let small = HealthLimits.defaults.withMaxStandbyLag(16_000_000)  // yellow 8 MB

    private func trailing(_ bytes: Double) -> HealthReading {
        HealthReading([.standbyLagBytes: .measured(bytes)], trailing: [.standbyLagBytes])
    }

    func testATrailingSignalIsGradedWhereItWillBeByTheNextReading() {
        var policy = HealthPolicy(limits: small)
        // No standby connected at first (nothing trails): no slow start, the slopes are learnt.
        XCTAssertEqual(policy.assess(lag(0), now: 0, horizon: 1.2).decision, .proceed)
        // +2 MB/s: 2 MB now, 4.4 MB by the next reading: green.
        XCTAssertEqual(policy.assess(lag(2_000_000), now: 1, horizon: 1.2).decision, .proceed)
        // +4 MB/s: 6 MB is green, but 10.8 MB by the next reading is yellow.
        let yellow = policy.assess(lag(6_000_000), now: 2, horizon: 1.2)
        XCTAssertEqual(yellow.decision.grade, .yellow)
        XCTAssertEqual(
            yellow.decision.reasons,
            ["standby replay lag 6.0 MB, projected 10.8 MB in 1.2 s (+4.0 MB/s) >= yellow 8.0 MB"])
        XCTAssertEqual(yellow.decision.pauseRatio, 0.5 + 0.5 * (2.8 / 8), accuracy: 1e-9, "severity of the projection")
        // +6 MB/s: 12 MB is only yellow, but 19.2 MB by the next reading is past red: wait now.
        let red = policy.assess(lag(12_000_000), now: 3, horizon: 1.2)
        XCTAssertTrue(red.decision.waits)
        XCTAssertEqual(
            red.change,
            "health red, waiting with claims given back: standby replay lag 12.0 MB, projected 19.2 MB in 1.2 s "
                + "(+6.0 MB/s) >= red 16.0 MB")
    }

    func testWithoutAHorizonAReadingIsJudgedAsItStands() {
        var policy = HealthPolicy(limits: small)
        for (t, mb) in [0, 2, 6].enumerated() {
            XCTAssertEqual(policy.assess(trailing(Double(mb) * 1e6), now: Double(t)).decision, .proceed)
        }
        let a = policy.assess(trailing(12_000_000), now: 3)
        XCTAssertEqual(a.decision.grade, .yellow)
        XCTAssertEqual(a.decision.reasons, ["standby replay lag 12.0 MB >= yellow 8.0 MB"])
        // `rederive health` judges one reading so: a connected standby does not read as a slow start.
        XCTAssertEqual(
            HealthReport(store: "s", reading: trailing(1_000_000), policy: HealthPolicy(limits: small)).decision,
            .proceed)
    }

    func testARunStartsAtHalfSpeedUntilATrailingSignalsGrowthIsKnown() {
        var policy = HealthPolicy(limits: small)
        let start = policy.assess(trailing(0), now: 0, horizon: 1.2)
        XCTAssertEqual(start.decision.grade, .yellow)
        XCTAssertEqual(start.decision.batchSecondsFactor, 0.5)
        XCTAssertEqual(start.decision.pauseRatio, 1)
        XCTAssertEqual(
            start.decision.reasons,
            ["standby replay lag 0 B, its growth not known yet: half speed until the next reading"])
        // 1 MB a second later, 0.5 s of it paused: +2 MB/s at full speed, 3.4 MB by the next reading.
        let known = policy.assess(trailing(1_000_000), now: 1, horizon: 1.2, paused: 0.5)
        XCTAssertEqual(known.decision, .proceed)
        XCTAssertEqual(known.change, "health green: full speed again")
        // With nothing trailing (no standby connected) a zero lag cannot grow: full speed from the start.
        var alone = HealthPolicy(limits: small)
        XCTAssertEqual(alone.assess(lag(0), now: 0, horizon: 1.2).decision, .proceed)
    }

    func testASlopeMeasuredWhilePausingIsTheFullSpeedOne() {
        var policy = HealthPolicy(limits: small)
        _ = policy.assess(lag(0), now: 0, horizon: 1.2)
        // 3 MB in 1 s, of which 0.5 s paused: +6 MB/s writing, 3 + 7.2 = 10.2 MB by the next reading.
        let a = policy.assess(lag(3_000_000), now: 1, horizon: 1.2, paused: 0.5)
        XCTAssertEqual(
            a.decision.reasons, ["standby replay lag 3.0 MB, projected 10.2 MB in 1.2 s (+6.0 MB/s) >= yellow 8.0 MB"])
        // The steepest of the recent slopes is kept: a slower second does not hide it.
        let b = policy.assess(lag(4_000_000), now: 2, horizon: 1.2)
        XCTAssertEqual(b.decision.grade, .yellow, "4 MB + 6 MB/s x 1.2 s")
    }

    func testAfterARedWaitTheRunStartsAgainAtHalfSpeed() {
        var policy = HealthPolicy(limits: small, greenHoldSeconds: 2)
        _ = policy.assess(trailing(0), now: 0, horizon: 1.2)
        _ = policy.assess(trailing(4_000_000), now: 1, horizon: 1.2, paused: 0.5)
        XCTAssertTrue(policy.assess(trailing(12_000_000), now: 2, horizon: 1.2).decision.waits, "+8 MB/s: 21.6 MB")
        // While it waits the lag falls (the standby catches up): that slope is the server's alone.
        XCTAssertTrue(policy.assess(trailing(2_000_000), now: 3, horizon: 1.2).decision.waits)
        XCTAssertTrue(policy.assess(trailing(0), now: 4, horizon: 1.2).decision.waits)
        let resumed = policy.assess(trailing(0), now: 5, horizon: 1.2).decision
        XCTAssertFalse(resumed.waits)
        XCTAssertEqual(resumed.pauseRatio, 1, "half speed again until the growth is known: \(resumed)")
    }

    func testObserveModeSaysWhatTheProjectionWouldDo() {
        var policy = HealthPolicy(limits: small, mode: .observe)
        _ = policy.assess(lag(0), now: 0, horizon: 1.2)
        let a = policy.assess(lag(10_000_000), now: 1, horizon: 1.2)
        XCTAssertEqual(a.decision, .proceed)
        XCTAssertEqual(
            a.change, "would wait: standby replay lag 10.0 MB, projected 22.0 MB in 1.2 s (+10.0 MB/s) >= red 16.0 MB")
    }

    func testARedStartIsOneChangeNotTwoWhenTheGrowthBecomesKnown() {
        var policy = HealthPolicy(limits: small, mode: .observe)
        let lines = [20, 21, 22].enumerated().compactMap { t, mb in
            policy.assess(trailing(Double(mb) * 1e6), now: Double(t), horizon: 1.2).change
        }
        XCTAssertEqual(lines, ["would wait: standby replay lag 20.0 MB >= red 16.0 MB"])
    }

    /// A writer of 20 MB of WAL a second against a standby replaying 4 MB a second, a red limit
    /// of 16 MB (0.8 s of writes) and a reading a second (plus the batch that ends the
    /// interval, at the speed decided before it): no reading reaches red, and the run waits and
    /// goes on again rather than stopping for good. Scripted readings and times, no clock.
    func testAWriterOfMoreThanTheRedLimitASecondWaitsBeforeAReadingPassesRed() {
        let (rate, replay, batch, interval) = (20e6, 4e6, 0.2, 1.0)
        var policy = HealthPolicy(limits: small, greenHoldSeconds: 5)
        var (now, lag, paused, written) = (0.0, 0.0, 0.0, 0.0)
        var (before, readings, waits) = (HealthDecision.proceed, [Double](), 0)
        // `seconds` under `decision`: the run writes at 1 / (1 + pause ratio) of its rate, nothing
        // while it waits; the standby replays meanwhile.
        func run(_ seconds: Double, _ decision: HealthDecision) {
            let speed = decision.waits ? 0 : 1 / (1 + decision.pauseRatio)
            if !decision.waits { paused += seconds * (1 - speed) }
            written += rate * speed * seconds
            lag = max(0, lag + (rate * speed - replay) * seconds)
            now += seconds
        }
        while now < 120 {
            readings.append(lag)
            let decision = policy.assess(trailing(lag), now: now, horizon: interval + batch, paused: paused).decision
            paused = 0
            if decision.waits && !before.waits { waits += 1 }
            run(before.waits ? 0 : batch * before.batchSecondsFactor, before)  // the batch in hand
            run(interval, decision)
            before = decision
        }
        XCTAssertLessThan(readings.max() ?? 0, 16_000_000, "\(readings.map { Int($0 / 1e6) })")
        XCTAssertGreaterThanOrEqual(waits, 2, "it waited, went on, and waited again")
        // Red holds 5 s of green each time, at half speed after it: still a third of what the standby replays.
        XCTAssertGreaterThan(written, 120 * replay / 3, "it kept going between the waits")
        XCTAssertGreaterThan(readings.max() ?? 0, 8_000_000, "it came close: \(readings.map { Int($0 / 1e6) })")
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
