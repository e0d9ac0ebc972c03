import RederiveCore

extension PostgresStore {
    /// Deletes the batch rows of pruned runs (see `HistoryPruner.pruneBatches`).
    package func pruneBatches(keepRuns: Int?, before: String?) throws(RederiveError) -> Int? {
        try pruneRunRows(from: "run_batch", "prune the batch record", keepRuns: keepRuns, before: before)
    }

    /// Runs `RunRowsPrune`'s deletes of `table` in one transaction; returns the rows removed.
    func pruneRunRows(
        from table: String, _ what: String, keepRuns: Int?, before: String?, kept: String? = nil
    ) throws(RederiveError) -> Int {
        let statements = RunRowsPrune.statements(
            from: table, keepRuns: keepRuns, before: before, kept: kept, binder: { SQLArguments() })
        return try write(what) { tx in
            // A `before` without a zone (a date) is a UTC time, as on SQLite.
            try tx.run("SET LOCAL TimeZone = 'UTC'")
            return try statements.reduce(0) { removed, statement in
                removed + (try tx.run(statement.sql, statement.binder.binds).affected)
            }
        }
    }
}
