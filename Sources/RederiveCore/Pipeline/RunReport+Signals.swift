#if canImport(Glibc)
import Glibc
#endif

extension RunReport {
    /// The report of a command the signal `RunControl` received stopped before its first write
    /// and before it began a run: status `interrupted`, 130/143.
    static func stoppedBeforeWriting(command: String, deriver: SummaryDeriver, during what: String) -> RunReport {
        let signal = RunControl.receivedSignal ?? SIGINT
        return stoppedBeforeWriting(
            command: command, deriver: deriver, during: what, signal: signal,
            exit: RunControl.exitStatus(forSignal: signal))
    }
}
