/// One keyset range of a derive run claimed by this process: records with
/// `after < seq <= upTo`, held under a lease until `commitRange` marks it done.
package struct RangeClaim: Sendable, Equatable {
    /// What the next claim found.
    package enum Next: Sendable, Equatable {
        /// A range to derive.
        case claimed(RangeClaim)
        /// Nothing open now, but other processes hold ranges whose leases may still expire:
        /// ask again after `seconds` (what is waited for: `RangeWait`).
        case wait(RangeWait)
        /// Every range is done or failed.
        case finished
    }

    /// A failed range, for the report.
    package struct Failure: Sendable, Equatable {
        /// First and last key of the range.
        package var seqFrom: Int64
        /// Last key of the range.
        package var seqTo: Int64
        /// How many times it was claimed.
        package var attempts: Int
        /// The last error recorded for it, if any.
        package var lastError: String?

        /// Creates a failure.
        package init(seqFrom: Int64, seqTo: Int64, attempts: Int, lastError: String?) {
            (self.seqFrom, self.seqTo, self.attempts, self.lastError) = (seqFrom, seqTo, attempts, lastError)
        }
    }

    /// The range's row.
    package var rangeID: Int64
    /// The fencing token: the attempt this claim is; a commit with an older one is refused.
    package var attempt: Int
    /// Records after this key (exclusive) ...
    package var after: Int64
    /// ... up to this key (inclusive).
    package var upTo: Int64

    /// Creates a claim.
    package init(rangeID: Int64, attempt: Int, after: Int64, upTo: Int64) {
        (self.rangeID, self.attempt, self.after, self.upTo) = (rangeID, attempt, after, upTo)
    }

    /// How many equal pieces a claimed range holding `held` records is cut into when batches of
    /// about `size` are asked for (`--batch-seconds`): the count whose pieces come closest to
    /// `size`, over or under (1,000 records asked in 400s: 3 of 334, not 2 of 400 and a sliver of
    /// 200; asked in 450s: 2 of 500, not 3 of 334), so no piece is more than a third off the size
    /// asked; 1 (no cut) when the range holds no more than `size`, or only a little more.
    package static func pieces(holding held: Int, size: Int) -> Int {
        guard size >= 1, held > size else { return 1 }
        let fewer = held / size
        let over = Double(held) / Double(fewer * size) - 1
        let under = 1 - Double(held) / Double((fewer + 1) * size)
        return over <= under ? fewer : fewer + 1
    }
}
