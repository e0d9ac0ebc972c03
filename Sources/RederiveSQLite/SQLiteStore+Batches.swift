import GRDB
import RederiveCore

extension SQLiteStore {
    /// Deletes the batch rows of pruned runs (see `HistoryPruner.pruneBatches`).
    package func pruneBatches(keepRuns: Int?, before: String?) throws(RederiveError) -> Int? {
        do {
            return try pool.write { db in
                var removed = 0
                if let keepRuns {
                    try db.execute(
                        sql: """
                            DELETE FROM run_batch WHERE run_id NOT IN (
                                SELECT DISTINCT run_id FROM run_batch ORDER BY run_id DESC LIMIT ?)
                            """, arguments: [keepRuns])
                    removed += db.changesCount
                }
                if let before {
                    try db.execute(
                        sql: """
                            DELETE FROM run_batch WHERE run_id IN (
                                SELECT id FROM run WHERE julianday(COALESCE(finished_at, started_at)) < julianday(?))
                            """, arguments: [before])
                    removed += db.changesCount
                }
                return removed
            }
        } catch {
            throw .io("\(path): cannot prune the batch record: \(error)")
        }
    }
}
