import RederiveCore

extension PostgresStore {
    /// The tables each command bulk-writes, whose planner statistics its run refreshes. Only
    /// the columns the store's statements join, filter, group or sort on have a statistics
    /// target (`pg-v8-statistics-targets`): the others (raw bytes, a summary's fields and JSON)
    /// decide no plan, and their statistics cost the most (after a derive of 40,000 records,
    /// `ANALYZE summary` of every column took 0.17 s of the server's CPU, these 0.04 s, at the
    /// end of a run of about 1.2 s). The tables are named whole, not by column: only such an
    /// ANALYZE resets the table's change count, so autovacuum does not analyze it once more.
    private static let writtenTables: [String: String] = {
        let summaries = "summary, summary_history"
        return [
            "import": "record, raw_room, raw_core_model, " + summaries,
            "derive": summaries,
            "revert": summaries,
        ]
    }()

    /// Refreshes the planner's statistics of the tables run `runID` wrote, once it has written
    /// anything. Until autovacuum's own ANALYZE (up to a minute later, and only past its change
    /// threshold) freshly loaded tables have none, and the planner's guesses made a dry run or a
    /// plan's check right after an import (which derives as it stores) up to 3× slower than the
    /// write they guard (20,000 records: the dry run 1.84 s without statistics, 0.59 s with
    /// them). ANALYZE samples a bounded number of rows, so its cost does not grow with the store.
    /// Statistics are an optimisation: a role that may not analyze (the server skips the table
    /// with a warning) or any failure here leaves the run's outcome as it was.
    func refreshStatistics(runID: Int64, statistics: RunStatistics) {
        guard statistics.recordsDone > 0, !readOnly else { return }
        do {
            let command = try writer.run("SELECT command FROM run WHERE id = $1", .of(runID)).rows.first?
                .get("command", as: String.self)
            guard let command, let tables = Self.writtenTables[command] else { return }
            // This session's own row counts reach the server's statistics up to a second after
            // its commits: flushed now, before the ANALYZE resets the change count, or they
            // would count again after it (a server before PostgreSQL 15 has no such call).
            _ = try? writer.run("SELECT pg_stat_force_next_flush()")
            _ = try writer.run("ANALYZE \(tables)")
        } catch {
            return
        }
    }
}
