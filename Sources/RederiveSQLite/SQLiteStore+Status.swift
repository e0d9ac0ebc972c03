import GRDB
import RederiveCore

extension SQLiteStore {
    /// What the store holds and how current it is, judged against `deriver` (default: this
    /// build's), with the latest `runLimit` runs newest first.
    ///
    /// Only reads, in one transaction so the counts agree with each other; on a store opened
    /// with `readOnly: true` the file stays byte-identical.
    public func status(
        deriver: SummaryDeriver = SummaryDeriver(), runLimit: Int = 10
    ) throws(RederiveError) -> StoreStatus {
        let version = deriver.version
        let fingerprint = deriver.fingerprint
        do {
            return try pool.read { db in
                let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM record") ?? 0

                var byVersion: [StoreStatus.VersionCount] = []
                let versionRows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT summary.summary_version AS v, COUNT(*) AS n
                        FROM record LEFT JOIN summary ON summary.record_seq = record.seq
                        GROUP BY summary.summary_version
                        """)
                for row in versionRows {
                    byVersion.append(.init(summaryVersion: row["v"], records: row["n"]))
                }
                byVersion.sort(by: StoreStatus.VersionCount.displayOrder)

                // Every record in one of the five disjoint `SummaryFreshness` cases.
                let freshness = try Self.freshnessCounts(db, deriver: deriver)
                let stale = freshness.stale

                let failures = StoreStatus.FailureCount.inDisplayOrder(
                    try Row.fetchAll(
                        db,
                        sql: """
                            SELECT stage, code, COUNT(*) AS n FROM failure GROUP BY stage, code
                            """
                    ).map { StoreStatus.FailureCount(stage: $0["stage"], code: $0["code"], count: $0["n"]) })

                let totalRuns = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM run") ?? 0
                let runs = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT id, command, status, exit_status, started_at, duration_s, records_read, records_done,
                               records_unchanged, records_skipped, pipeline
                        FROM run ORDER BY id DESC LIMIT ?
                        """, arguments: [max(0, runLimit)]
                ).map { row in
                    StoreStatus.RunEntry(
                        id: row["id"], command: row["command"], status: row["status"], exitStatus: row["exit_status"],
                        startedAt: row["started_at"], durationSeconds: row["duration_s"], read: row["records_read"],
                        done: row["records_done"], unchanged: row["records_unchanged"], skipped: row["records_skipped"],
                        pipeline: row["pipeline"])
                }

                var status = StoreStatus(
                    path: path, totalRecords: total, recordsByVersion: byVersion, stale: stale,
                    failures: failures, recentRuns: runs, totalRuns: totalRuns,
                    currentVersion: version, currentFingerprint: fingerprint)
                // Newer summaries are not stale: an older build leaves them alone.
                status.newer = freshness[.newer]
                status.newestVersion = try Int.fetchOne(
                    db, sql: SummaryFreshness.sqlNewestVersion { _ in "?" }, arguments: [version])
                if try db.tableExists("summary_history") {
                    (status.historyRows, status.historyBytes) = try historySize(db)
                }
                return status
            }
        } catch {
            throw .io("\(path): cannot read the store's status: \(error)")
        }
    }
}
