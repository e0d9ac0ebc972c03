import RederiveCore

extension PostgresStore {
    /// What the store holds and how current it is (one repeatable-read transaction, so the
    /// counts agree), with the ranges of the latest split derive run.
    package func status(deriver: SummaryDeriver, runLimit: Int) throws(RederiveError) -> StoreStatus {
        let (version, fingerprint) = (deriver.version, deriver.fingerprint)
        return try io("read the store's status") {
            try reader.transaction { tx in
                try tx.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                let total = try tx.run("SELECT count(*) FROM record").rows[0].decode(Int.self)
                var byVersion = try tx.run(
                    """
                    SELECT summary.summary_version AS v, count(*) AS n
                    FROM record LEFT JOIN summary ON summary.record_seq = record.seq GROUP BY summary.summary_version
                    """
                ).rows.map { StoreStatus.VersionCount(summaryVersion: try $0.get("v"), records: try $0.get("n")) }

                byVersion.sort(by: StoreStatus.VersionCount.displayOrder)
                // Every record in one of the five disjoint `SummaryFreshness` cases.
                let query = Self.freshnessCountsQuery(deriver: deriver)
                let freshness = try Self.freshnessCounts(tx.run(query.sql, query.binds))
                let stale = freshness.stale
                let failures = StoreStatus.FailureCount.inDisplayOrder(
                    try tx.run("SELECT stage, code, count(*) AS n FROM failure GROUP BY stage, code").rows.map {
                        StoreStatus.FailureCount(
                            stage: try $0.get("stage"), code: try $0.get("code"), count: try $0.get("n"))
                    })
                let totalRuns = try tx.run("SELECT count(*) FROM run").rows[0].decode(Int.self)
                let runs = try tx.run(
                    """
                    SELECT id, command, status, exit_status, started_at, duration_s, records_read, records_done,
                           records_unchanged, records_skipped, pipeline
                    FROM run ORDER BY id DESC LIMIT $1
                    """, .of(max(0, runLimit))
                ).rows.map { row in
                    StoreStatus.RunEntry(
                        id: try row.get("id"), command: try row.get("command"), status: try row.get("status"),
                        exitStatus: try row.get("exit_status"), startedAt: try row.get("started_at"),
                        durationSeconds: try row.get("duration_s"), read: try row.get("records_read"),
                        done: try row.get("records_done"), unchanged: try row.get("records_unchanged"),
                        skipped: try row.get("records_skipped"), pipeline: try row.get("pipeline"))
                }
                var status = StoreStatus(
                    path: path, totalRecords: total, recordsByVersion: byVersion, stale: stale, failures: failures,
                    recentRuns: runs, totalRuns: totalRuns, currentVersion: version,
                    currentFingerprint: fingerprint)
                status.newer = freshness[.newer]
                status.newestVersion = try tx.run(SummaryFreshness.sqlNewestVersion { _ in "$1" }, .of(version))
                    .rows[0].decode(Int?.self)
                let history = try tx.run(
                    "SELECT count(*) AS n, COALESCE(sum(octet_length(summary_json)), 0)::bigint AS b"
                        + " FROM summary_history"
                ).rows[0]
                status.historyRows = try history.get("n")
                status.historyBytes = try history.get("b")
                status.deriveRanges = try Self.rangeStatus(tx)
                let ranges = try tx.run("SELECT count(*) AS n, count(DISTINCT run_id) AS r FROM derive_range").rows[0]
                status.rangeRows = .init(rows: try ranges.get("n"), runs: try ranges.get("r"))
                return status
            }
        }
    }

    private static func rangeStatus(_ tx: PostgresSession.Transaction) throws -> StoreStatus.DeriveRanges? {
        guard let run = try tx.run("SELECT max(run_id) FROM derive_range").rows.first?.decode(Int64?.self) else {
            return nil
        }
        let counts = try tx.run(
            """
            SELECT count(*) FILTER (WHERE state = 'open' OR (state = 'claimed' AND lease_until <= now())) AS open,
                   count(*) FILTER (WHERE state = 'claimed' AND lease_until > now()) AS claimed,
                   count(*) FILTER (WHERE state = 'done') AS done,
                   count(*) FILTER (WHERE state = 'failed') AS failed
            FROM derive_range WHERE run_id = $1
            """, .of(run)
        ).rows[0]
        var claimedBy: [String: Int] = [:]
        for row in try tx.run(
            """
            SELECT claimed_by, count(*) AS n FROM derive_range
            WHERE run_id = $1 AND state = 'claimed' AND lease_until > now() GROUP BY claimed_by
            """, .of(run)
        ).rows {
            claimedBy[try row.get("claimed_by")] = try row.get("n")
        }
        return StoreStatus.DeriveRanges(
            runID: run, open: try counts.get("open"), claimed: try counts.get("claimed"),
            done: try counts.get("done"), failed: try counts.get("failed"), claimedBy: claimedBy)
    }
}
