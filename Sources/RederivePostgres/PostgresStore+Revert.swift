import RederiveCore

/// `rederive revert` and `rederive history --prune` on PostgreSQL: SQLite's semantics
/// (`SQLiteStore+Revert`), each batch one transaction of a few pipelined statements over arrays.
extension PostgresStore {
    /// Whether run `id` exists, and its command.
    package func runCommand(id: Int64) throws(RederiveError) -> String? {
        try io("read the run history") {
            try reader.run("SELECT command FROM run WHERE id = $1", .of(id)).rows.first?.decode(String.self)
        }
    }

    /// The highest history row run `run` left (a revert's upper bound): its highest record key.
    package func maxHistoryID(replacedBy run: Int64) throws(RederiveError) -> Int64 {
        try io("read the summary history") {
            try reader.run("SELECT max(record_seq) FROM summary_history WHERE replaced_by_run = $1", .of(run))
                .rows.first?.decode(Int64?.self) ?? 0
        }
    }

    /// The next summaries run `run` replaced, by record key (`record_seq > after AND
    /// record_seq <= upTo`): what each record held before the run, and what it holds now.
    package func fetchRevertCandidates(
        replacedBy run: Int64, after: Int64, upTo: Int64, limit: Int
    ) throws(RederiveError) -> [RevertCandidate] {
        let history = SummaryColumn.aliasedList(of: "h", as: "h_")
        let current = SummaryColumn.aliasedList(of: "s", as: "s_")
        return try io("read the summary history") {
            try reader.run(
                """
                SELECT h.record_seq, record.id AS record_id, s.record_seq AS current_seq, \(history), \(current)
                FROM summary_history h JOIN record ON record.seq = h.record_seq
                LEFT JOIN summary s ON s.record_seq = h.record_seq
                WHERE h.replaced_by_run = $1 AND h.record_seq > $2 AND h.record_seq <= $3
                ORDER BY h.record_seq LIMIT $4
                """, .of(run, after, upTo, limit)
            ).rows.map { row in
                let r = row.makeRandomAccess()
                return RevertCandidate(
                    seq: try r["record_seq"].decode(Int64.self), id: try r["record_id"].decode(String.self),
                    previous: try StoredSummary(r, prefix: "h_"),
                    current: try r["current_seq"].decode(Int64?.self) == nil ? nil : StoredSummary(r, prefix: "s_"))
            }
        }
    }

    /// Restores `restores` in one transaction with the revert run's checkpoint, in one round
    /// trip: what each record holds goes to the history under the revert run first (so a
    /// revert can itself be reverted), then the summaries are upserted from arrays.
    package func writeRevertBatch(
        _ restores: [(seq: Int64, summary: StoredSummary)], runID: Int64, checkpoint: Int64,
        progress: RunStatistics
    ) throws(RederiveError) {
        var statements: [PostgresSession.Statement] = []
        if !restores.isEmpty {
            let seqs = restores.map(\.seq)
            let list = Self.summaryColumnList
            // As SQLite's `keepHistory`: a run's first replacement of a record is kept.
            statements.append(
                PostgresSession.Statement(
                    """
                    INSERT INTO summary_history (replaced_by_run, record_seq, replaced_at, \(list))
                    SELECT $1, record_seq, $2, \(list) FROM summary WHERE record_seq = ANY($3::int8[])
                    ON CONFLICT (replaced_by_run, record_seq) DO NOTHING
                    """, .of(runID, Self.now(), seqs)))
            var args = SQLArguments()
            let seqArray = args.add(seqs)
            let columns = SummaryColumn.unnest(restores.map(\.summary), &args)
            let updates = SummaryColumn.upsertAssignments(.postgres)
            statements.append(
                PostgresSession.Statement(
                    """
                    INSERT INTO summary (record_seq, \(list))
                    SELECT n.seq, \(columns.select.joined(separator: ", "))
                    FROM \(SummaryColumn.rows(seq: seqArray, columns))
                    ON CONFLICT (record_seq) DO UPDATE SET \(updates)
                    """, args.binds))
        }
        statements.append(Self.progress(runID: runID, progress, checkpointSeq: checkpoint))
        try write("write the batch") { tx in try tx.run(statements) }
    }

    /// Deletes the history of all but the latest `keepRuns` runs that replaced summaries, and
    /// (when given) everything replaced before `before` (ISO 8601; without a zone, UTC, as on
    /// SQLite). Returns the rows removed.
    package func pruneHistory(keepRuns: Int?, before: String?) throws(RederiveError) -> Int {
        try write("prune the summary history") { tx in
            // As on SQLite: what goes of each run is counted in store_info first.
            func prune(_ condition: String, _ binds: PostgresBindings) throws -> Int {
                try tx.run(
                    """
                    INSERT INTO store_info (key, value)
                    SELECT '\(PrunedHistory.keyPrefix)' || replaced_by_run, count(*)::text FROM summary_history
                    WHERE \(condition) GROUP BY replaced_by_run
                    ON CONFLICT (key) DO UPDATE SET value = (store_info.value::int8 + excluded.value::int8)::text
                    """, binds)
                return try tx.run("DELETE FROM summary_history WHERE \(condition)", binds).affected
            }
            var removed = 0
            if let keepRuns {
                removed += try prune(
                    """
                    replaced_by_run NOT IN (
                        SELECT DISTINCT replaced_by_run FROM summary_history
                        ORDER BY replaced_by_run DESC LIMIT $1)
                    """, .of(keepRuns))
            }
            if let before {
                // A time without a zone means UTC, whatever the server's TimeZone says.
                try tx.run("SET LOCAL TimeZone = 'UTC'")
                removed += try prune("replaced_at::timestamptz < $1::timestamptz", .of(before))
            }
            return removed
        }
    }

    /// How many summaries run `run` replaced whose history was pruned (see SQLite's).
    package func prunedHistoryCount(of run: Int64) throws(RederiveError) -> Int {
        try io("read the store's information") {
            Int(
                try reader.run("SELECT value FROM store_info WHERE key = $1", .of(PrunedHistory.key(run)))
                    .rows.first?.decode(String.self) ?? "") ?? 0
        }
    }

    /// Deletes the range rows of pruned runs: with `keepRuns`, of every run but the latest
    /// `keepRuns` that have ranges; with `before`, of runs that ended (or, never ended,
    /// started) before it. A run a rerun could still continue (the latest of its key, neither
    /// completed nor failed) keeps its ranges: they are how the rerun goes on.
    package func pruneRanges(keepRuns: Int?, before: String?) throws(RederiveError) -> Int? {
        let continuable = """
            run.status NOT IN ('\(RunStatus.completed.rawValue)', '\(RunStatus.failed.rawValue)')
            AND run.id = (SELECT max(later.id) FROM run later WHERE later.resume_key = run.resume_key)
            """
        return try pruneRunRows(
            from: "derive_range", "prune the derive ranges", keepRuns: keepRuns, before: before, kept: continuable)
    }
}
