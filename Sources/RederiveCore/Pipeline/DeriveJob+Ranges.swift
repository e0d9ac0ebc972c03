import Foundation
import Logging

extension DeriveJob {
    func finish(status: RunStatus, stats: inout RunStatistics) {
        guard let claims = rangeClaims, let sink else { return }
        // Every write is done: what is still held was read ahead but will not be committed by
        // this process (it was stopped). Given back, other processes (or a rerun) take those
        // ranges at once instead of after their leases.
        if let leases = sink.leases {
            leases.stop()
            let leftover = leases.heldClaims
            do {
                try claims.giveBack(leftover)
            } catch {
                Logger(label: "rederive.derive").warning(
                    "\(leftover.count) range(s) not given back (taken again after their leases): \(error)")
            }
        }
        // A range taken over after this process's lease ran out (it was paused) was not
        // written: its records leave this process's tally (read, derived...), which then
        // matches what it committed.
        let lost = sink.lostCounts.withLock { $0 }
        stats.recordsRead -= lost.recordsRead
        stats.recordsDone -= lost.recordsDone
        stats.recordsUnchanged -= lost.recordsUnchanged
        stats.recordsSkipped -= lost.recordsSkipped
        stats.recordsNewer -= lost.recordsNewer
        stats.decodedBytes -= lost.decodedBytes
        let done = sink.rangesDone.withLock { $0 }
        let records = done.reduce(0) { $0 + $1.records }
        let list = Self.rangeList(done.map { ($0.from, $0.to) })
        Logger(label: "rederive.derive").info(
            "\(claims.workerName) committed \(done.count) range(s) of run \(runID), \(records) records: \(list)",
            metadata: ["ranges": "\(done.count)", "records": "\(records)", "worker": "\(claims.workerName)"])
    }

    /// `1...500, 1001...1500, …` (at most the first 8, then how many more).
    static func rangeList(_ ranges: [(Int64, Int64)]) -> String {
        guard !ranges.isEmpty else { return "none" }
        let shown = ranges.prefix(8).map { "\($0.0)...\($0.1)" }.joined(separator: ", ")
        return ranges.count > 8 ? shown + " and \(ranges.count - 8) more" : shown
    }
}
