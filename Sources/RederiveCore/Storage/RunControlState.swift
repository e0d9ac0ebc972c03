import Foundation

/// What an operator set for runs in the store (`rederive pause`, `resume`, `throttle`): one
/// row for every run of the store and one per run. Every worker of every process on every
/// host reads it between batches (`RunGovernor`) and obeys it within one batch and a second.
public struct RunControlState: Sendable, Equatable {
    /// The run it is set for; nil: every run of the store.
    public var runID: Int64?
    /// When the pause began (UTC, ISO 8601); nil: not paused.
    public var pausedSince: String?
    /// Who paused (`user@host`).
    public var pausedBy: String?
    /// Why, as the operator said (`--reason`).
    public var reason: String?
    /// When the pause ends by itself (UTC with milliseconds, `--until`); nil: at `resume`.
    public var pausedUntil: String?
    /// Records per second for all processes of a run together (`throttle --max-rate`).
    public var maxRate: Double?
    /// Who set the rate (`user@host`).
    public var rateSetBy: String?

    /// Creates a state (not paused, no rate).
    public init(
        runID: Int64? = nil, pausedSince: String? = nil, pausedBy: String? = nil, reason: String? = nil,
        pausedUntil: String? = nil, maxRate: Double? = nil, rateSetBy: String? = nil
    ) {
        (self.runID, self.pausedSince, self.pausedBy, self.reason) = (runID, pausedSince, pausedBy, reason)
        (self.pausedUntil, self.maxRate, self.rateSetBy) = (pausedUntil, maxRate, rateSetBy)
    }

    /// Whether a pause is in force at `now` (UTC with milliseconds, as `TimestampText.utcMilliseconds`
    /// writes it): set, and its `pausedUntil`, if any, not yet reached.
    public func isPaused(at now: String = RunControlState.now()) -> Bool {
        guard pausedSince != nil else { return false }
        guard let until = pausedUntil else { return true }
        return now < until
    }

    /// Whether nothing is set (no pause, no rate): a row that can go.
    public var isEmpty: Bool { pausedSince == nil && maxRate == nil }

    /// What is in force for one run given the store's row and the rows of the run (and of the
    /// runs it continues): paused when any is (the earliest pause named), the lowest rate.
    public static func inForce(_ rows: [RunControlState], at now: String = RunControlState.now()) -> RunControlState {
        var state = RunControlState()
        let pauses = rows.filter { $0.isPaused(at: now) }.sorted { ($0.pausedSince ?? "") < ($1.pausedSince ?? "") }
        if let first = pauses.first {
            (state.runID, state.pausedSince, state.pausedBy) = (first.runID, first.pausedSince, first.pausedBy)
            (state.reason, state.pausedUntil) = (first.reason, first.pausedUntil)
        }
        if let rated = rows.filter({ $0.maxRate != nil }).min(by: { $0.maxRate! < $1.maxRate! }) {
            (state.maxRate, state.rateSetBy) = (rated.maxRate, rated.rateSetBy)
        }
        return state
    }

    /// The line people read: `paused since … by … (reason), until …`.
    public var pauseText: String {
        var text = "paused since \(pausedSince ?? "?") by \(pausedBy ?? "?")"
        if let reason, !reason.isEmpty { text += " (\(TerminalText.escaped(reason)))" }
        if let pausedUntil { text += ", until \(pausedUntil)" }
        return text
    }

    /// Now, as the control's times are written and compared (UTC with milliseconds).
    public static func now(_ date: Date = Date()) -> String {
        let text = ReferenceDate.iso8601(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        return TimestampText.utcMilliseconds(text) ?? text
    }

    /// Who is changing the control: `user@host`.
    public static var operatorName: String {
        let user = ProcessInfo.processInfo.environment["USER"] ?? ProcessInfo.processInfo.userName
        return "\(user.isEmpty ? "unknown" : user)@\(ProcessInfo.processInfo.hostName)"
    }
}

extension RunControlState {
    /// Seconds since the reference date of a time as the control writes it
    /// (`2026-11-27T16:23:53.123Z`, any form `TimestampText.utcMilliseconds` reads); nil otherwise.
    public static func seconds(of text: String) -> Double? {
        guard let utc = TimestampText.utcMilliseconds(text) else { return nil }
        let b = Array(utc.utf8)
        func number(_ at: Int, _ count: Int) -> Int64 {
            (at..<(at + count)).reduce(0) { $0 * 10 + Int64(b[$1] - 0x30) }
        }
        let days = ReferenceDate.daysSinceEpoch(year: number(0, 4), month: number(5, 2), day: number(8, 2))
        let seconds = Double(days * 86_400 + number(11, 2) * 3600 + number(14, 2) * 60 + number(17, 2))
        return seconds + Double(number(20, 3)) / 1000 - ReferenceDate.unixOffset
    }
}
