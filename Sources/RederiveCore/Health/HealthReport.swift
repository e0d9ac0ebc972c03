import Foundation

/// What `rederive health` shows: each signal's value against its limits, and what the
/// throttle would do now.
public struct HealthReport: Sendable {
    /// The store, redacted.
    public var store: String
    /// The reading.
    public var reading: HealthReading
    /// The limits it was judged by.
    public var limits: HealthLimits
    /// What the throttle (mode `on`) would do.
    public var decision: HealthDecision

    /// Judges `reading` by `policy` (a fresh policy: no wait in force).
    public init(store: String, reading: HealthReading, policy: HealthPolicy) {
        var fresh = policy
        let assessment = fresh.assess(reading, now: 0)
        (self.store, self.reading, self.limits, self.decision) = (store, reading, policy.limits, assessment.wouldBe)
    }

    /// The grade of `signal` in this reading, nil when unmeasurable or absent.
    public func grade(_ signal: HealthSignal) -> HealthGrade? { reading[signal].map { limits[signal].grade($0) } }

    private var signals: [HealthSignal] { HealthSignal.allCases.filter { reading.values[$0] != nil } }

    /// The table for a terminal.
    public func text() -> String {
        var rows = [["signal", "value", "yellow", "red", "grade"]]
        for signal in signals {
            let limit = limits[signal]
            let value: String
            switch reading.values[signal] {
            case .measured(let v)?: value = signal.unit.format(v)
            case .unmeasurable(let why)?: value = "unmeasurable (\(why))"
            case nil: value = "-"
            }
            rows.append([
                signal.rawValue, value, signal.unit.format(limit.yellow), signal.unit.format(limit.red),
                grade(signal).map(\.description) ?? "-",
            ])
        }
        let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var out = "store    \(TerminalText.escaped(store))\n\n"
        for row in rows {
            out +=
                "  "
                + row.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
        }
        out += "\nverdict  \(decision.grade)"
        if decision.waits {
            out += ": the throttle would wait (\(decision.reasons.joined(separator: "; ")))"
        } else if decision.grade == .yellow {
            out +=
                ": the throttle would slow down to \(String(format: "%.2f", decision.batchSecondsFactor))x the "
                + "batch time, pausing \(String(format: "%.2f", decision.pauseRatio))x each batch's time "
                + "(\(decision.reasons.joined(separator: "; ")))"
        }
        return out + "\n"
    }

    /// One JSON object: `{store, grade, waits, reasons, signals: [{signal, value, unmeasurable,
    /// yellow, red, grade}]}` (value null and unmeasurable the reason when it cannot be measured).
    public func json() -> String {
        let number = JSONText.number
        let entries = signals.map { signal -> String in
            let limit = limits[signal]
            var value = "null", why = "null"
            switch reading.values[signal] {
            case .measured(let v)?: value = number(v)
            case .unmeasurable(let reason)?: why = JSONText.string(reason)
            case nil: break
            }
            return "{\"signal\":\"\(signal.rawValue)\",\"value\":\(value),\"unmeasurable\":\(why),"
                + "\"yellow\":\(number(limit.yellow)),\"red\":\(number(limit.red)),"
                + "\"grade\":\(grade(signal).map { "\"\($0)\"" } ?? "null")}"
        }
        return "{\"store\":\(JSONText.string(store)),\"grade\":\"\(decision.grade)\",\"waits\":\(decision.waits),"
            + "\"reasons\":[\(decision.reasons.map(JSONText.string).joined(separator: ","))],"
            + "\"signals\":[\(entries.joined(separator: ","))]}"
    }
}
