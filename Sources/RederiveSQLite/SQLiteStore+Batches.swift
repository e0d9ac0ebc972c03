import GRDB
import RederiveCore

extension SQLiteStore {
    /// Deletes the batch rows of pruned runs (see `HistoryPruner.pruneBatches`): `RunRowsPrune`'s
    /// deletes, in one transaction.
    package func pruneBatches(keepRuns: Int?, before: String?) throws(RederiveError) -> Int? {
        let statements = RunRowsPrune.statements(
            from: "run_batch", keepRuns: keepRuns, before: before, binder: { SQLiteArguments() })
        do {
            return try pool.write { db in
                try statements.reduce(0) { removed, statement in
                    try db.execute(sql: statement.sql, arguments: statement.binder.arguments)
                    return removed + db.changesCount
                }
            }
        } catch {
            throw .io("\(path): cannot prune the batch record: \(error)")
        }
    }
}
