/// The deletes `history --prune` runs on the rows a run keeps beside its history (its batch
/// record, `run_batch`; its derive ranges, `derive_range`), rendered once for every engine in
/// its dialect (`HistoryPruner.pruneBatches`, `pruneRanges`): the rows of all but the latest
/// `keepRuns` runs that have rows in the table, and those of runs that ended (or, never ended,
/// started) before a time. Runs matching `kept`, a condition on `run`, keep their rows either
/// way (a run a rerun could still continue keeps its ranges).
package enum RunRowsPrune {
    /// The statements, each with the binder its values went to (from `binder()`), in the order
    /// they run in one transaction; none when neither `keepRuns` nor `before` is given.
    package static func statements<Binder: SQLBinder>(
        from table: String, keepRuns: Int?, before: String?, kept: String? = nil, binder: () -> Binder
    ) -> [(sql: String, binder: Binder)] {
        var statements: [(sql: String, binder: Binder)] = []
        if let keepRuns {
            var arguments = binder()
            let latest =
                "SELECT DISTINCT run_id FROM \(table) ORDER BY run_id DESC LIMIT "
                + arguments.bind(.integer(Int64(keepRuns)))
            let sql =
                if let kept {
                    """
                    DELETE FROM \(table) WHERE run_id IN (
                        SELECT run.id FROM run WHERE run.id NOT IN (\(latest))
                        AND NOT (\(kept)))
                    """
                } else {
                    "DELETE FROM \(table) WHERE run_id NOT IN (\(latest))"
                }
            statements.append((sql, arguments))
        }
        if let before {
            var arguments = binder()
            let dialect = arguments.dialect
            let ended = dialect.instant("COALESCE(run.finished_at, run.started_at)")
            let cut = dialect.instant(arguments.bind(.text(before)))
            let sql = """
                DELETE FROM \(table) WHERE run_id IN (
                    SELECT run.id FROM run WHERE \(ended) < \(cut)\(kept.map { " AND NOT (\($0))" } ?? ""))
                """
            statements.append((sql, arguments))
        }
        return statements
    }
}
