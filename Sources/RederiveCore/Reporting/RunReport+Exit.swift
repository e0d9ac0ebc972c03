import Logging

extension RunReport {
    /// The report of a command or pipeline stage that a fatal fault (`error`) ended before it
    /// could report anything itself (a refused plan, a busy or newer store, a lost
    /// connection): status `failed`, the error's exit status, its message as the reason and
    /// no counts. The results document and the metrics file carry it, so that a failed run
    /// leaves the same trace as a successful one.
    public static func failure(command: String, error: RederiveError, runID: Int64 = 0) -> RunReport {
        let deriver = SummaryDeriver()
        return RunReport(
            runID: runID, command: command, status: .failed, exitStatus: error.exitStatus,
            statistics: RunStatistics(), counts: [], issuesByCode: [:], newFailures: 0,
            summaryVersion: deriver.version, fingerprint: deriver.fingerprint, resumedFrom: nil,
            stopReason: error.description)
    }

    /// Why the run did not end with exit status 0, for the line a `--quiet` run still prints:
    /// at level `error` for a stop (error budget, signal, fault), `warning` for exit 3 (a
    /// success with skipped records or unfinished parts); nil for exit 0.
    public var exitReason: (level: Logger.Level, line: String)? {
        let run = isRecorded ? " (run \(runID))" : ""
        let exit = "exit \(exitStatus.rawValue)"
        switch exitStatus {
        case .ok:
            return nil
        case .skippedRecords:
            var parts: [String] = []
            let s = statistics
            if s.recordsSkipped > 0 {
                parts.append("\(s.recordsSkipped) record\(s.recordsSkipped == 1 ? "" : "s") skipped")
            }
            if s.fileFaults > 0 { parts.append("\(s.fileFaults) file fault\(s.fileFaults == 1 ? "" : "s")") }
            if !warnings.isEmpty { parts.append("\(warnings.count) warning\(warnings.count == 1 ? "" : "s") above") }
            let see = reportPath.map { " (see \($0))" } ?? ""
            return (.warning, "\(command)\(run): \(exit), " + parts.joined(separator: ", ") + see)
        case .interrupted, .terminated:
            let reason = stopReason ?? "a signal"
            // A run that never began (stopped during a plan check) committed nothing.
            let done = isRecorded ? "the batch in hand was committed" : "nothing was written"
            return (
                .error,
                "\(command)\(run) stopped by \(reason) (\(exit)): \(done); run the same command again to continue"
            )
        default:
            let reason = stopReason.map { ": \($0)" } ?? ""
            return (.error, "\(command)\(run) \(status.rawValue) (\(exit))\(reason)")
        }
    }
}
