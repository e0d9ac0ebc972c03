import Logging
import Synchronization

/// The writer-thread half of `DeriveJob` (its `BatchSink`): commits a batch's writes with the
/// run's checkpoint, or a claimed range fenced by its attempt, and counts the failures it
/// added and the ranges it committed for the driver to read after the last write. A dry
/// run's sink commits nothing.
final class DeriveSink: Sendable {
    let store: any DeriveWriter
    let deriver: SummaryDeriver
    let runID: Int64
    /// The engine's range claims when this process claims ranges (nil: a keyset walk).
    let claims: (any DeriveRangeClaims)?
    /// The leases of the ranges this process holds (with `claims`).
    let leases: LeaseKeeper?
    /// Whether results are committed (false: a dry run).
    let commits: Bool
    let failuresAdded = Mutex(0)
    let rangesLost = Mutex(0)
    /// What the lost ranges counted (read, done, unchanged...): taken back out of this
    /// process's tally, which then counts only what it committed.
    let lostCounts = Mutex(RunStatistics())
    /// The ranges this process committed (first and last key, records read), for its log.
    let rangesDone = Mutex<[(from: Int64, to: Int64, records: Int)]>([])

    init(
        store: any DeriveWriter, deriver: SummaryDeriver, runID: Int64, claims: (any DeriveRangeClaims)?,
        leases: LeaseKeeper?, commits: Bool
    ) {
        (self.store, self.deriver, self.runID) = (store, deriver, runID)
        (self.claims, self.leases, self.commits) = (claims, leases, commits)
    }

    /// Commits one batch's results (on the writer thread).
    func write(_ results: DeriveJob.Results, progress: RunStatistics) throws(RederiveError) {
        guard commits else { return }
        if let claim = results.claim, let claims {
            try commit(claim, results: results, claims: claims)
            return
        }
        let added = try store.writeDeriveBatch(
            results.writes, runID: runID, deriver: deriver,
            checkpointSeq: results.lastSeq, progress: progress)
        failuresAdded.withLock { $0 += added }
    }

    /// Commits a claimed range (fenced by its attempt). A lost claim writes nothing and is
    /// only counted; a write that fails gives the range back (open again, or failed after
    /// its last attempt) and the run goes on with the next one, unless even that fails.
    private func commit(
        _ claim: RangeClaim, results: DeriveJob.Results, claims: any DeriveRangeClaims
    ) throws(RederiveError) {
        let log = Logger(label: "rederive.derive")
        defer { leases?.release(claim) }
        do {
            guard
                let added = try claims.commitRange(
                    claim, writes: results.writes, runID: runID, deriver: deriver, counts: results.counts)
            else {
                rangesLost.withLock { $0 += 1 }
                lostCounts.withLock { lost in
                    lost.recordsRead += results.counts.recordsRead
                    lost.recordsDone += results.counts.recordsDone
                    lost.recordsUnchanged += results.counts.recordsUnchanged
                    lost.recordsSkipped += results.counts.recordsSkipped
                    lost.recordsNewer += results.counts.recordsNewer
                    lost.decodedBytes += results.counts.decodedBytes
                }
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
}
