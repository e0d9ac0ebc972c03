import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The signal that asked the process to stop (0 while none has).
private let stopSignal = Atomic<Int32>(0)

/// Stop requests (SIGINT, SIGTERM) and the error budget of a batch run. A signal does not
/// kill the process: the run finishes the batch in hand, commits it and stops cleanly.
public struct RunControl: Sendable {
    /// Abort once more than this many records were skipped.
    public var maxErrors: Int?
    /// Abort once the share of skipped records exceeds this (checked after each batch, once
    /// at least `minimumSampleForRate` records were read).
    public var maxErrorRate: Double?
    /// Records to read before the error rate is judged.
    public var minimumSampleForRate = 100
    /// Whether SIGINT/SIGTERM stop the run (a dry run, with nothing to commit, reads on).
    public var honoursSignals: Bool

    /// Creates a control with an optional error budget.
    public init(maxErrors: Int? = nil, maxErrorRate: Double? = nil, honoursSignals: Bool = true) {
        self.maxErrors = maxErrors
        self.maxErrorRate = maxErrorRate
        self.honoursSignals = honoursSignals
    }

    /// Routes SIGINT and SIGTERM to a stop request instead of ending the process.
    public static func installSignalHandlers() {
        signal(SIGINT) { stopSignal.store($0, ordering: .relaxed) }
        signal(SIGTERM) { stopSignal.store($0, ordering: .relaxed) }
    }

    /// The signal received since the handlers were installed, if any.
    public static var receivedSignal: Int32? {
        let s = stopSignal.load(ordering: .relaxed)
        return s == 0 ? nil : s
    }

    /// Asks the run to stop as if `signal` had arrived (for tests).
    public static func requestStop(signal: Int32) { stopSignal.store(signal, ordering: .relaxed) }

    /// Clears a stop request (for tests).
    public static func resetStop() { stopSignal.store(0, ordering: .relaxed) }

    /// Whether the budget is exceeded by `skipped` of `read` records; the reason when so.
    public func budgetExceeded(skipped: Int, read: Int) -> String? {
        if let maxErrors, skipped > maxErrors {
            return "\(skipped) records skipped, more than the error budget allows (max-errors \(maxErrors))"
        }
        if let maxErrorRate, read >= minimumSampleForRate, read > 0, Double(skipped) / Double(read) > maxErrorRate {
            return "\(skipped) of \(read) records skipped, "
                + "more than the error budget allows (max-error-rate \(maxErrorRate))"
        }
        return nil
    }

    /// Why the run should stop after the batch just handed over, if it should: a signal
    /// (`interrupted`) or the error budget (`aborted`), with the reason for the tally.
    public func stopRequest(skipped: Int, read: Int) -> (status: RunStatus, reason: String)? {
        if honoursSignals, let signal = Self.receivedSignal {
            return (.interrupted, signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)")
        }
        if let reason = budgetExceeded(skipped: skipped, read: read) { return (.aborted, reason) }
        return nil
    }

    /// The exit status a run ending with `status` implies: 130/143 for a signal, 4 for the
    /// error budget, else 3 when records were skipped, 0 when none were.
    public static func exitStatus(for status: RunStatus, skipped: Int) -> ExitStatus {
        switch status {
        case .interrupted: exitStatus(forSignal: receivedSignal ?? SIGINT)
        case .aborted: .errorBudget
        case .failed: .failure
        default: skipped > 0 ? .skippedRecords : .ok
        }
    }

    /// Exit status for a stop by `signal`: 128 + signal number (130 SIGINT, 143 SIGTERM).
    public static func exitStatus(forSignal signal: Int32) -> ExitStatus { ExitStatus.stopped(bySignal: signal) }
}
