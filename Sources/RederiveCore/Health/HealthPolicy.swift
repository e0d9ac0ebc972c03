import Foundation

/// The graded response to the server's health, with hysteresis: pure, fed one reading at a
/// time with the time it was taken (tests script both).
///
/// A signal that trails the run's writes (`HealthSignal.trailsWrites`: standby replay lag, WAL
/// held by slots) is graded on the larger of its value and where it will be when the next
/// reading can act (`horizon` seconds on, growing at the steepest of its recent slopes at full
/// speed, `HealthTrend`): a reading a second cannot otherwise stop a writer whose second of
/// writes is more than the distance to red. Until a trailing signal's growth is known (the
/// first reading of a run, or the first after a red wait), the run goes at half speed as on
/// the top of yellow when something trails (a standby connected, a slot), so the first second
/// writes about half a second's worth: a red limit should sit above one second of the run's
/// writes (docs/postgresql.md).
///
/// - Green: full speed.
/// - Yellow (some signal at or past its yellow limit, none at red): at severity `s` (0 at the
///   yellow limit, 1 at the red one) the level is `0.5 + 0.5 s`; the target batch time is
///   multiplied by `1 - 0.5 level` (0.75 → 0.5) and each batch is followed by a pause of
///   `level` times its own time (0.5 → 1).
/// - Red (any signal at or past its red limit, or unmeasurable past the `wait` policy's time):
///   every worker waits with its claims given back, until every signal has been below its
///   yellow limit for `greenHoldSeconds` without a break.
///
/// In `observe` mode the decision acted on is always `proceed`; `wouldBe` and the change
/// line say what `on` would have done ("would wait: …").
public struct HealthPolicy: Sendable {
    /// The limits.
    public var limits: HealthLimits
    /// On, observe or off.
    public var mode: ThrottleMode
    /// What an unmeasurable signal does.
    public var unmeasurable: UnmeasurablePolicy
    /// How long every signal must stay green before a red wait ends.
    public var greenHoldSeconds: Double

    /// Whether a red wait is in force.
    public private(set) var waiting = false
    private var greenSince: Double?
    private var unmeasurableSince: [HealthSignal: Double] = [:]
    private var lastState: String?
    private var reportedUnmeasurable: Set<HealthSignal> = []
    private var trend = HealthTrend()
    // Whether the run waited since the last reading (red, mode `on`): it wrote nothing.
    private var waitedSinceLastReading = false

    /// A policy; `greenHoldSeconds` 30 by default.
    public init(
        limits: HealthLimits = .defaults, mode: ThrottleMode = .on, unmeasurable: UnmeasurablePolicy = .continue,
        greenHoldSeconds: Double = 30
    ) {
        (self.limits, self.mode, self.unmeasurable, self.greenHoldSeconds) = (
            limits, mode, unmeasurable, greenHoldSeconds
        )
    }

    /// What one assessment gives: the decision to act on, what `on` would do, and a log line
    /// when the state changed since the last assessment (nil otherwise: once per change, not
    /// per batch), plus the first report of each signal that cannot be measured.
    public struct Assessment: Sendable, Equatable {
        /// Acted on (`proceed` in observe mode).
        public var decision: HealthDecision
        /// What mode `on` would do.
        public var wouldBe: HealthDecision
        /// The line to log, when the state changed.
        public var change: String?
        /// Lines for signals found unmeasurable for the first time.
        public var unmeasurableNotices: [String]
    }

    /// Assesses `reading`, taken at `now` (seconds on any monotonic clock), after the run paused
    /// `paused` seconds between batches since the last reading; `horizon` is how long until the
    /// next reading's decision can act (the read interval and a batch): 0 judges the reading as
    /// it stands, without projection or a slow start (`rederive health`).
    public mutating func assess(
        _ reading: HealthReading, now: Double, horizon: Double = 0, paused: Double = 0
    ) -> Assessment {
        if horizon > 0 { trend.observe(reading, now: now, paused: paused, waited: waitedSinceLastReading) }
        var reds: [(Double, String, HealthSignal)] = []
        var yellows: [(Double, String, HealthSignal)] = []
        var passed: Set<String> = []  // the signals past a limit: a change of these is logged
        var severity = 0.0
        for signal in HealthSignal.allCases {
            let limit = limits[signal]
            switch reading.values[signal] {
            case .measured(let value)?:
                unmeasurableSince[signal] = nil
                let ahead =
                    horizon > 0 && signal.trailsWrites ? trend.projected(signal, from: value, in: horizon) : value
                let judged = max(value, ahead)
                var shown = signal.unit.format(value)
                if judged > value, limit.grade(judged) > limit.grade(value), let slope = trend.slope(signal) {
                    shown +=
                        ", projected \(signal.unit.format(judged)) in \(String(format: "%.1f", horizon)) s "
                        + "(+\(signal.unit.format(slope))/s)"
                }
                switch limit.grade(judged) {
                case .red:
                    passed.insert(signal.rawValue + ":red")
                    reds.append(
                        (
                            judged / max(limit.red, 1e-9),
                            "\(signal.label) \(shown) >= red \(signal.unit.format(limit.red))", signal
                        ))
                case .yellow:
                    passed.insert(signal.rawValue + ":yellow")
                    let s = limit.severity(judged)
                    severity = max(severity, s)
                    yellows.append(
                        (s, "\(signal.label) \(shown) >= yellow \(signal.unit.format(limit.yellow))", signal))
                case .green: break
                }
            case .unmeasurable(let why)?:
                let since = unmeasurableSince[signal] ?? now
                unmeasurableSince[signal] = since
                if case .wait(let after) = unmeasurable, now - since >= after {
                    passed.insert(signal.rawValue + ":unmeasurable")
                    reds.append((1, "\(signal.label) cannot be measured (\(why)) for \(Int(now - since)) s", signal))
                }
            case nil:
                unmeasurableSince[signal] = nil
            }
        }
        var notices: [String] = []
        for (signal, why) in reading.unmeasurable where !reportedUnmeasurable.contains(signal) {
            reportedUnmeasurable.insert(signal)
            let policy: String
            switch unmeasurable {
            case .continue: policy = "going on without it (--unmeasurable continue)"
            case .wait(let after): policy = "waiting as on red after \(Int(after)) s (--unmeasurable wait)"
            }
            notices.append("health: \(signal.label) cannot be measured: \(why); \(policy)")
        }

        // Trailing signals whose growth is not known yet: the run starts at half speed.
        let unknown =
            horizon > 0
            ? HealthSignal.allCases.filter {
                $0.trailsWrites && reading.trailing.contains($0) && reading[$0] != nil && trend.slope($0) == nil
            } : []

        var decision = HealthDecision.proceed
        if !reds.isEmpty {
            waiting = true
            greenSince = nil
            let worst = reds.sorted { $0.0 > $1.0 }
            decision = HealthDecision(
                grade: .red, batchSecondsFactor: 0.5, pauseRatio: 1, waits: true, reasons: worst.map(\.1),
                signals: worst.map(\.2))
        } else if waiting {
            if yellows.isEmpty {
                let since = greenSince ?? now
                greenSince = since
                if now - since >= greenHoldSeconds {
                    waiting = false
                    greenSince = nil
                }
            } else {
                greenSince = nil
            }
            if waiting {
                let green = greenSince.map { now - $0 } ?? 0
                let worst = yellows.sorted { $0.0 > $1.0 }
                decision = HealthDecision(
                    grade: .red, batchSecondsFactor: 0.5, pauseRatio: 1, waits: true,
                    reasons: worst.map(\.1) + ["green for \(Int(green)) of \(Int(greenHoldSeconds)) s before going on"],
                    signals: worst.map(\.2))
            }
        }
        if !waiting && !(yellows.isEmpty && unknown.isEmpty) {
            // A slow start is a change of its own (once), not while red.
            for signal in unknown { passed.insert(signal.rawValue + ":start") }
            let level = unknown.isEmpty ? 0.5 + 0.5 * severity : 1
            let worst = yellows.sorted { $0.0 > $1.0 }
            let starting = unknown.map {
                "\($0.label) \($0.unit.format(reading[$0] ?? 0)), its growth not known yet: "
                    + "half speed until the next reading"
            }
            decision = HealthDecision(
                grade: .yellow, batchSecondsFactor: 1 - 0.5 * level, pauseRatio: level, waits: false,
                reasons: worst.map(\.1) + starting, signals: worst.map(\.2) + unknown)
        }
        waitedSinceLastReading = mode == .on && decision.waits
        let change = changeLine(decision, passed: passed)
        return Assessment(
            decision: mode == .on ? decision : .proceed, wouldBe: decision, change: change,
            unmeasurableNotices: notices)
    }

    // Once per change of grade or of which limits are passed, not per batch.
    private mutating func changeLine(_ decision: HealthDecision, passed: Set<String>) -> String? {
        let state = "\(decision.grade) \(decision.waits) " + passed.sorted().joined(separator: ",")
        guard state != lastState else { return nil }
        let first = lastState == nil
        lastState = state
        if first && decision.grade == .green { return nil }
        let observing = mode == .observe
        let why = decision.reasons.joined(separator: "; ")
        switch decision.grade {
        case .red:
            return observing ? "would wait: \(why)" : "health red, waiting with claims given back: \(why)"
        case .yellow:
            let what =
                "batches at \(String(format: "%.2f", decision.batchSecondsFactor))x their target time, "
                + "a pause of \(String(format: "%.2f", decision.pauseRatio))x each batch's time"
            return observing ? "would slow down (\(what)): \(why)" : "health yellow, slowing down (\(what)): \(why)"
        case .green:
            return observing ? "would go on at full speed: health green" : "health green: full speed again"
        }
    }
}
