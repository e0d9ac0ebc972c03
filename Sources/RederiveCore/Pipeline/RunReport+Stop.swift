import Foundation

extension RunReport {
    /// The report of a command a signal stopped before its first write and before it began a
    /// run (during a plan check or a max-changes count): status `interrupted`, 130/143.
    static func stoppedBeforeWriting(command: String, deriver: SummaryDeriver, during what: String) -> RunReport {
        let signal = RunControl.receivedSignal ?? SIGINT
        let name = signal == SIGTERM ? "SIGTERM" : signal == SIGINT ? "SIGINT" : "signal \(signal)"
        return RunReport(
            runID: 0, command: command, status: .interrupted, exitStatus: RunControl.exitStatus(forSignal: signal),
            statistics: RunStatistics(), counts: [], issuesByCode: [:], newFailures: 0,
            summaryVersion: deriver.version, fingerprint: deriver.fingerprint, resumedFrom: nil,
            stopReason: "\(name) during \(what)")
    }
}
