import RederiveCore

extension PostgresStore {
    /// Cuts a claimed range after its first `records` record keys (about: the range is cut in
    /// equal pieces of the count `RangeClaim.pieces` gives, the claim keeping the first): the claimed row ends there
    /// and the keys after it become a new open range of the same run, in one transaction that
    /// only goes ahead while this claim (its attempt) still holds the row. Every key stays in
    /// exactly one range, and the remainder is claimed, leased and fenced like any other.
    /// Keys are counted over the stored records, not the selection: a range of a sparse
    /// selection holds fewer selected records than `records`, never more.
    package func cut(_ claim: RangeClaim, toRecords records: Int) throws(RederiveError) -> RangeClaim {
        guard records >= 1 else { return claim }
        return try io("cut the claimed range") {
            try reader.transaction { tx in
                // The reader's commits do not wait for their WAL flush (a lost claim is harmless); a
                // lost cut after a kept claim would not be, so this one waits (and flushes the claim).
                try tx.run("SET LOCAL synchronous_commit = on")
                // Cut into equal pieces as close to `records` as whole pieces get, this claim keeping
                // the first: a remainder is never a sliver (1,000 records asked in 341s: 334, then 333
                // and 333; asked in 450s: 500 and 500).
                let held = try tx.run(
                    "SELECT count(*) FROM record WHERE seq > $1 AND seq <= $2", .of(claim.after, claim.upTo)
                ).rows[0].decode(Int.self)
                let pieces = RangeClaim.pieces(holding: held, size: records)
                guard pieces > 1 else { return claim }
                let at = try tx.run(
                    "SELECT seq FROM record WHERE seq > $1 AND seq <= $2 ORDER BY seq OFFSET $3 LIMIT 1",
                    .of(claim.after, claim.upTo, (held + pieces - 1) / pieces - 1)
                ).rows.first?.decode(Int64.self)
                guard let at, at < claim.upTo else { return claim }
                let cut = try tx.run(
                    """
                    UPDATE derive_range SET seq_to = $3 WHERE id = $1 AND attempt = $2 AND state = 'claimed'
                    RETURNING run_id
                    """, .of(claim.rangeID, claim.attempt, at))
                guard let run = try cut.rows.first?.decode(Int64.self) else { return claim }
                try tx.run(
                    "INSERT INTO derive_range (run_id, seq_from, seq_to) VALUES ($1, $2, $3)",
                    .of(run, at + 1, claim.upTo))
                return RangeClaim(rangeID: claim.rangeID, attempt: claim.attempt, after: claim.after, upTo: at)
            }
        }
    }
}
