import RederiveCore

extension PostgresStore {
    /// The tables each command bulk-writes, whose planner statistics its run refreshes: only
    /// the columns the store's statements join, filter, group or sort on. The others (raw
    /// bytes, a summary's fields and JSON) decide no plan, and their statistics cost the most:
    /// after a derive of 40,000 records, `ANALYZE summary` took 0.17 s of the server's CPU,
    /// these columns 0.04 s, at the end of a run of about 1.2 s. (Such an ANALYZE leaves the
    /// table's change count alone: autovacuum's own, of every column, still comes.)
    private static let writtenTables: [String: String] = {
        let summaries =
            "summary (record_seq, summary_version, fingerprint, run_id, derived_at), "
            + "summary_history (record_seq, replaced_by_run)"
        return [
            "import": "record (seq, id, stored_at), raw_room (record_seq), raw_core_model (record_seq), " + summaries,
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
            _ = try writer.run("ANALYZE \(tables)")
        } catch {
            return
        }
    }
}
