/// How an engine shared by many processes splits a derive run: the selection is cut once
/// into keyset ranges kept in the store; every process claims the next open range (or one
/// whose lease ran out), derives it and commits its results together with marking it done,
/// fenced by the claim's attempt so a process that lost its lease cannot commit over the
/// one that took over. A range claimed too many times is marked failed and reported.
package protocol DeriveRangeClaims: AnyObject, Sendable {
    /// Who claims (host and process id), as `status` shows it.
    var workerName: String { get }
    /// How long a claim holds a range without being renewed, in seconds (server clock).
    var leaseSeconds: Double { get }

    /// Cuts run `runID`'s selection (up to `upTo`, or the run's own bound when one is set)
    /// into ranges of about `rangeSize` selected records, once: a process joining the run
    /// finds them cut. Returns the run's upper bound and its number of ranges.
    func prepareRanges(
        runID: Int64, selection: DeriveSelection, deriver: SummaryDeriver, allowDowngrade: Bool, upTo: Int64,
        rangeSize: Int
    ) throws(RederiveError) -> (upTo: Int64, ranges: Int)

    /// Claims the next open or lease-expired range of run `runID`.
    func claimNext(runID: Int64) throws(RederiveError) -> RangeClaim.Next

    /// Writes a range's results and marks it done in one transaction, fenced by the claim's
    /// attempt. Returns the failures new to the ledger, or nil when the claim was lost (its
    /// lease ran out and another process claimed it): then nothing was written.
    func commitRange(
        _ claim: RangeClaim, writes: [DeriveWrite], runID: Int64, deriver: SummaryDeriver,
        counts: RunStatistics
    ) throws(RederiveError) -> Int?

    /// Gives a range back after its write failed (`error`): open again, or failed once it
    /// was claimed the maximum number of times. Fenced like `commitRange`.
    func releaseRange(_ claim: RangeClaim, error: String) throws(RederiveError)

    /// Extends the leases of `claims` by a lease from now, each only while its attempt still
    /// holds the range (a range another process took is left alone).
    func renewLeases(_ claims: [RangeClaim]) throws(RederiveError)

    /// Gives back ranges this process claimed but will not commit (it is stopping): open again
    /// at once for other processes, without counting as a failed attempt. Fenced like
    /// `commitRange`.
    func giveBack(_ claims: [RangeClaim]) throws(RederiveError)

    /// The ranges of run `runID` that failed.
    func failedRanges(runID: Int64) throws(RederiveError) -> [RangeClaim.Failure]

    /// Cuts a range this process just claimed down to about `records` records (`--batch-seconds`
    /// asks for smaller batches than the ranges were cut at): the claim keeps its first piece of
    /// `RangeClaim.pieces` (exactly `records` when it holds more than twice that) and the rest
    /// becomes a new open range, at once, fenced by the claim's attempt. Returns the claim as it
    /// now is (unchanged when it holds no more, or when the claim was lost).
    func cut(_ claim: RangeClaim, toRecords records: Int) throws(RederiveError) -> RangeClaim
}
