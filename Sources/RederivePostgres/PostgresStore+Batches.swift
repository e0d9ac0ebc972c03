import RederiveCore

extension PostgresStore {
    /// Deletes the batch rows of pruned runs (see `HistoryPruner.pruneBatches`).
    package func pruneBatches(keepRuns: Int?, before: String?) throws(RederiveError) -> Int? {
        try io("prune the batch record") {
            try writer.transaction { tx in
                var removed = 0
                if let keepRuns {
                    removed +=
                        try tx.run(
                            """
                            DELETE FROM run_batch WHERE run_id NOT IN (
                                SELECT DISTINCT run_id FROM run_batch ORDER BY run_id DESC LIMIT $1)
                            """, .of(keepRuns)
                        ).affected
                }
                if let before {
                    try tx.run("SET LOCAL TimeZone = 'UTC'")
                    removed +=
                        try tx.run(
                            """
                            DELETE FROM run_batch WHERE run_id IN (
                                SELECT id FROM run
                                WHERE COALESCE(finished_at, started_at)::timestamptz < $1::timestamptz)
                            """, .of(before)
                        ).affected
                }
                return removed
            }
        }
    }
}
