import Foundation
import Logging

extension DeriveJob {
    /// Commits a claimed range (fenced by its attempt). A lost claim writes nothing and is
    /// only counted; a write that fails gives the range back (open again, or failed after
    /// its last attempt) and the run goes on with the next one, unless even that fails.
    func commit(_ claim: RangeClaim, results: Results, claims: any DeriveRangeClaims) throws(RederiveError) {
        let log = Logger(label: "rederive.derive")
        defer { leases?.release(claim) }
        do {
            guard
                let added = try claims.commitRange(
                    claim, writes: results.writes, runID: runID, deriver: deriver, counts: results.counts)
            else {
                rangesLost.withLock { $0 += 1 }
                let text =
                    "range \(claim.after + 1)...\(claim.upTo) was taken over by another process after this one's "
                    + "lease ran out (attempt \(claim.attempt)); its results were not written"
                log.warning("\(text)")
                return
            }
            failuresAdded.withLock { $0 += added }
            rangesDone.withLock { $0.append((claim.after + 1, claim.upTo, results.counts.recordsRead)) }
            log.debug(
                "range \(claim.after + 1)...\(claim.upTo) done (attempt \(claim.attempt))",
                metadata: ["records": "\(results.counts.recordsRead)", "worker": "\(claims.workerName)"])
        } catch {
            try claims.releaseRange(claim, error: "\(error)")
            log.warning(
                "range \(claim.after + 1)...\(claim.upTo) (attempt \(claim.attempt)) could not be written: \(error)")
        }
    }
    func finish(status: RunStatus, stats: inout RunStatistics) {
        guard let claims = rangeClaims else { return }
        // Every write is done: what is still held was read ahead but will not be committed by
        // this process (it was stopped). Given back, other processes (or a rerun) take those
        // ranges at once instead of after their leases.
        if let leases {
            leases.stop()
            let leftover = leases.heldClaims
            do {
                try claims.giveBack(leftover)
            } catch {
                Logger(label: "rederive.derive").warning(
                    "\(leftover.count) range(s) not given back (taken again after their leases): \(error)")
            }
        }
        let done = rangesDone.withLock { $0 }
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
