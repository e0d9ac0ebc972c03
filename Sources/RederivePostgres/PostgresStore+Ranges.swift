import RederiveCore

extension PostgresStore: DeriveRangeClaims {
    /// Cuts the run's selection into ranges of `rangeSize` selected records, once, under the
    /// run row's lock: a process joining the run later finds them cut and the bound set.
    package func prepareRanges(
        runID: Int64, selection: DeriveSelection, deriver: SummaryDeriver, allowDowngrade: Bool, upTo: Int64,
        rangeSize: Int
    ) throws(RederiveError) -> (upTo: Int64, ranges: Int) {
        try write("cut the run into ranges") { tx in
            let bound = try tx.run("SELECT upper_bound_seq FROM run WHERE id = $1 FOR UPDATE", .of(runID)).rows[0]
                .decode(Int64?.self)
            let existing = try tx.run("SELECT count(*) FROM derive_range WHERE run_id = $1", .of(runID)).rows[0]
                .decode(Int.self)
            if existing > 0, let bound { return (bound, existing) }
            let upper = bound ?? upTo
            try tx.run("UPDATE run SET upper_bound_seq = $1 WHERE id = $2", .of(upper, runID))
            var args = SQLArguments()
            let (run, size) = (args.add(runID), args.add(max(1, rangeSize)))
            let bounds = "record.seq <= \(args.add(upper))"
            let where_ = filter(selection, deriver: deriver, allowDowngrade: allowDowngrade, &args)
            let cut = try tx.run(
                """
                INSERT INTO derive_range (run_id, seq_from, seq_to)
                SELECT \(run), min(seq), max(seq) FROM (
                    SELECT record.seq, (row_number() OVER (ORDER BY record.seq) - 1) / \(size) AS bucket
                    FROM record LEFT JOIN summary ON summary.record_seq = record.seq
                    WHERE \(bounds)\(where_)) AS selected
                GROUP BY bucket ORDER BY 2
                """, args.binds)
            return (upper, cut.affected)
        }
    }

    /// Claims the next open range, or one whose lease ran out on the server's clock, with
    /// `FOR UPDATE SKIP LOCKED` (claimers never wait on each other). Every claim bumps the
    /// attempt; a range already claimed `maxAttempts` times is marked failed instead.
    package func claimNext(runID: Int64) throws(RederiveError) -> RangeClaim.Next {
        try io("claim a range") {
            while true {
                let claimed = try reader.run(
                    """
                    WITH next AS (
                        SELECT id FROM derive_range
                        WHERE run_id = $1 AND (state = 'open' OR (state = 'claimed' AND lease_until < now()))
                        ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
                    UPDATE derive_range r
                    SET state = CASE WHEN r.attempt - r.released >= $2 THEN 'failed' ELSE 'claimed' END,
                        attempt = CASE WHEN r.attempt - r.released >= $2 THEN r.attempt ELSE r.attempt + 1 END,
                        claimed_by = CASE WHEN r.attempt - r.released >= $2 THEN r.claimed_by ELSE $3 END,
                        lease_until = CASE WHEN r.attempt - r.released >= $2 THEN NULL
                            ELSE now() + make_interval(secs => $4) END,
                        last_error = CASE WHEN r.attempt - r.released >= $2
                            THEN COALESCE(r.last_error, 'its lease ran out ' || (r.attempt - r.released)
                                          || ' times (the process holding it died or stalled)')
                            ELSE r.last_error END
                    FROM next WHERE r.id = next.id
                    RETURNING r.id, r.state, r.attempt, r.seq_from, r.seq_to
                    """, .of(runID, maxAttempts, workerName, leaseSeconds)
                ).rows.first
                guard let claimed else { break }
                if try claimed.get("state", as: String.self) == "failed" { continue }
                return .claimed(
                    RangeClaim(
                        rangeID: try claimed.get("id"), attempt: try claimed.get("attempt"),
                        after: try claimed.get("seq_from", as: Int64.self) - 1, upTo: try claimed.get("seq_to")))
            }
            let pending = try reader.run(
                """
                SELECT count(*) AS n, EXTRACT(EPOCH FROM (min(lease_until) - now()))::float8 AS wait
                FROM derive_range WHERE run_id = $1 AND state IN ('open', 'claimed')
                """, .of(runID)
            ).rows[0]
            guard try pending.get("n", as: Int.self) > 0 else { return .finished }
            try endStalledHolders(runID: runID)
            let held = try reader.run(
                """
                SELECT seq_from, seq_to, COALESCE(claimed_by, '') AS holder,
                       to_char(lease_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS until
                FROM derive_range WHERE run_id = $1 AND state = 'claimed' AND claimed_by IS DISTINCT FROM $2
                ORDER BY seq_from
                """, .of(runID, workerName)
            ).rows.map {
                RangeWait.Held(
                    seqFrom: try $0.get("seq_from"), seqTo: try $0.get("seq_to"), holder: try $0.get("holder"),
                    leaseUntil: try $0.get("until", as: String?.self))
            }
            return .wait(
                RangeWait(seconds: max(0.05, try pending.get("wait", as: Double?.self) ?? 0.05), held: held))
        }
    }

    /// The `application_name` of a worker's sessions: how another worker finds them.
    static func applicationName(worker: String) -> String { "rederive " + worker }

    /// Ends the transactions that hold a range of the run whose lease ran out more than a lease
    /// ago. A worker stopped (SIGSTOP, a VM paused) while its commit's pipeline was half sent
    /// leaves its transaction waiting for the rest, "active" to the server, so neither the
    /// idle-in-transaction timeout nor a lease ends it, and its row lock keeps the range from
    /// every other worker for as long as it stays stopped (`FOR UPDATE SKIP LOCKED` skips it).
    /// Only transactions that began before that lease ran out, of sessions named after the
    /// range's holder, on this database; the holder, when it wakes up, finds its connection
    /// gone, reconnects and its results are fenced out (the range was claimed again).
    func endStalledHolders(runID: Int64) throws {
        try reader.run(
            """
            SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a
            JOIN derive_range r ON a.application_name = $3 || r.claimed_by
            WHERE r.run_id = $1 AND r.state = 'claimed' AND r.lease_until < now() - make_interval(secs => $2)
              AND a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.xact_start < r.lease_until
            """, .of(runID, leaseSeconds, Self.applicationName(worker: "")))
    }

    private struct LostClaim: Error {}

    /// Marks the range done (fenced: `WHERE id = ? AND attempt = ?` must hit its row) and
    /// writes its results, in one transaction of two round trips (`commitOnce`). The run row is not touched
    /// (its totals are summed from the ranges when the run finishes), so processes never
    /// queue on it.
    package func commitRange(
        _ claim: RangeClaim, writes: [DeriveWrite], runID: Int64, deriver: SummaryDeriver,
        counts: RunStatistics
    ) throws(RederiveError) -> Int? {
        var retried = false
        while true {
            do {
                return try commitOnce(claim, writes: writes, runID: runID, deriver: deriver, counts: counts)
            } catch is LostClaim {
                return nil
            } catch let lost as PostgresSession.ConnectionLost {
                // The connection went during the commit (a pause past the lease makes the
                // server end the idle transaction and the connection; a restart or a pooler's
                // cut likewise): whether it committed is read back on a new one. Done by this
                // attempt: written. Another attempt's: lost, the results dropped. Still this
                // attempt's: nothing was written, so it is tried once more on the new one.
                let state = try? writer.run(
                    "SELECT state, attempt FROM derive_range WHERE id = $1", .of(claim.rangeID)
                ).rows.first.map { (try $0.get("state", as: String.self), try $0.get("attempt", as: Int.self)) }
                guard let state else { throw .io("\(path): cannot write the range: \(lost)") }
                if state == ("done", claim.attempt) { return 0 }
                if state.1 != claim.attempt || state.0 != "claimed" { return nil }
                if retried { throw .io("\(path): cannot write the range: \(lost)") }
                retried = true
            } catch {
                throw .io("\(path): cannot write the range: \(PostgresSession.describe(error))")
            }
        }
    }

    // Two round trips: BEGIN, the fence and the read of the ledger entries the batch needs,
    // pipelined; then the writes and COMMIT, pipelined. The fence is checked before any write.
    private func commitOnce(
        _ claim: RangeClaim, writes: [DeriveWrite], runID: Int64, deriver: SummaryDeriver,
        counts: RunStatistics
    ) throws -> Int {
        let batch = deriveBatch(writes, runID: runID, deriver: deriver)
        let fence = PostgresSession.Statement(
            """
            UPDATE derive_range SET state = 'done', lease_until = NULL, done_at = now(), records_read = $3,
                records_done = $4, records_unchanged = $5, records_skipped = $6, records_newer = $7,
                bytes_read = $8
            WHERE id = $1 AND attempt = $2 AND state = 'claimed' AND seq_to = $9
            """,
            .of(
                claim.rangeID, claim.attempt, counts.recordsRead, counts.recordsDone, counts.recordsUnchanged,
                counts.recordsSkipped, counts.recordsNewer, counts.decodedBytes, claim.upTo))
        return try writer.transaction { tx in
            let read = batch.ledger.openEntriesStatement
            let first = try tx.run([fence] + (read.map { [$0] } ?? []))
            guard first[0].affected == 1 else { throw LostClaim() }
            let (ledgerStatements, added) = try batch.ledger.statements(
                openEntries: read == nil ? nil : first[1], runID: runID, now: batch.now)
            try tx.runAndCommit(batch.summaries + ledgerStatements)
            return added
        }
    }

    /// Gives the range back after a failed write: open again, or failed after its last attempt.
    package func releaseRange(_ claim: RangeClaim, error: String) throws(RederiveError) {
        try io("give the range back") {
            try writer.run(
                """
                UPDATE derive_range SET state = CASE WHEN attempt - released >= $3 THEN 'failed' ELSE 'open' END,
                    lease_until = NULL, last_error = $4
                WHERE id = $1 AND attempt = $2 AND state = 'claimed'
                """, .of(claim.rangeID, claim.attempt, maxAttempts, error))
        }
    }

    /// Extends the leases of `claims` by a lease from now on the server's clock, fenced by
    /// each claim's attempt (one statement for all of them).
    package func renewLeases(_ claims: [RangeClaim]) throws(RederiveError) {
        guard !claims.isEmpty else { return }
        try io("renew the leases") {
            try reader.run(
                """
                UPDATE derive_range r SET lease_until = now() + make_interval(secs => $3)
                FROM unnest($1::int8[], $2::int8[]) AS c(id, attempt)
                WHERE r.id = c.id AND r.attempt = c.attempt AND r.state = 'claimed'
                """, .of(claims.map(\.rangeID), claims.map { Int64($0.attempt) }, leaseSeconds))
        }
    }

    /// Gives ranges back untouched, open again at once, after a graceful stop: the claims
    /// are fenced by their attempts and do not count toward a range's failures.
    package func giveBack(_ claims: [RangeClaim]) throws(RederiveError) {
        guard !claims.isEmpty else { return }
        try io("give the ranges back") {
            try reader.run(
                """
                UPDATE derive_range r SET state = 'open', lease_until = NULL, released = r.released + 1
                FROM unnest($1::int8[], $2::int8[]) AS c(id, attempt)
                WHERE r.id = c.id AND r.attempt = c.attempt AND r.state = 'claimed'
                """, .of(claims.map(\.rangeID), claims.map { Int64($0.attempt) }))
        }
    }

    /// The ranges of run `runID` that failed.
    package func failedRanges(runID: Int64) throws(RederiveError) -> [RangeClaim.Failure] {
        try io("read the ranges") {
            try reader.run(
                """
                SELECT seq_from, seq_to, attempt, last_error FROM derive_range
                WHERE run_id = $1 AND state = 'failed' ORDER BY id
                """, .of(runID)
            ).rows.map {
                RangeClaim.Failure(
                    seqFrom: try $0.get("seq_from"), seqTo: try $0.get("seq_to"), attempts: try $0.get("attempt"),
                    lastError: try $0.get("last_error"))
            }
        }
    }
}
