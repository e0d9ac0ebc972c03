import GRDB
import RederiveCore

extension SQLiteStore {
    /// Copies summary rows into the history as replaced by run `?` at time `?`; the caller
    /// appends the `WHERE` clause. `OR IGNORE`: a run's first replacement of a record is kept
    /// (what the record held before the run).
    static let keepHistorySQL = """
        INSERT OR IGNORE INTO summary_history (replaced_by_run, record_seq, replaced_at, \(SummaryColumn.list()))
        SELECT ?, record_seq, ?, \(SummaryColumn.list()) FROM summary
        """

    /// Keeps the current summaries of `seqs` in the history as replaced by `runID`, in the
    /// caller's transaction (one statement for a whole batch).
    func keepHistory(_ db: Database, of seqs: [Int64], runID: Int64, now: String) throws {
        guard !seqs.isEmpty else { return }
        try db.execute(
            sql: Self.keepHistorySQL + " WHERE record_seq IN (\(seqs.map { _ in "?" }.joined(separator: ",")))",
            arguments: StatementArguments([runID.databaseValue, now.databaseValue] + seqs.map(\.databaseValue)))
    }

    /// Whether run `id` exists, and its command.
    package func runCommand(id: Int64) throws(RederiveError) -> String? {
        do {
            return try pool.read {
                try String.fetchOne($0, sql: "SELECT command FROM run WHERE id = ?", arguments: [id])
            }
        } catch {
            throw .io("\(path): cannot read the run history: \(error)")
        }
    }

    /// The highest history row run `run` left (a revert's upper bound).
    package func maxHistoryID(replacedBy run: Int64) throws(RederiveError) -> Int64 {
        do {
            return try pool.read {
                try Int64.fetchOne(
                    $0, sql: "SELECT MAX(record_seq) FROM summary_history WHERE replaced_by_run = ?",
                    arguments: [run]) ?? 0
            }
        } catch {
            throw .io("\(path): cannot read the summary history: \(error)")
        }
    }

    /// The next summaries run `run` replaced, by record key (`record_seq > after AND
    /// record_seq <= upTo`, the history's own key order): what each record held before the run.
    package func fetchRevertCandidates(
        replacedBy run: Int64, after: Int64, upTo: Int64,
        limit: Int
    ) throws(RederiveError) -> [RevertCandidate] {
        let historyColumns = SummaryColumn.aliasedList(of: "h", as: "h_")
        let currentColumns = SummaryColumn.aliasedList(of: "s", as: "s_")
        do {
            return try pool.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT h.record_seq, record.id AS record_id, s.record_seq AS current_seq,
                               \(historyColumns), \(currentColumns)
                        FROM summary_history h JOIN record ON record.seq = h.record_seq
                        LEFT JOIN summary s ON s.record_seq = h.record_seq
                        WHERE h.replaced_by_run = ? AND h.record_seq > ? AND h.record_seq <= ?
                        ORDER BY h.record_seq LIMIT ?
                        """, arguments: [run, after, upTo, limit]
                ).map { row in
                    RevertCandidate(
                        seq: row["record_seq"], id: row["record_id"],
                        previous: try StoredSummary(row: row, prefix: "h_"),
                        current: (row["current_seq"] as Int64?) == nil ? nil : try StoredSummary(row: row, prefix: "s_")
                    )
                }
            }
        } catch {
            throw .io("\(path): cannot read the summary history: \(error)")
        }
    }

    /// Restores `restores` (record key and the summary to put back) in one transaction with
    /// the revert run's checkpoint. What each record held is kept in the history first, under
    /// the revert run, so a revert can itself be reverted.
    package func writeRevertBatch(
        _ restores: [(seq: Int64, summary: StoredSummary)], runID: Int64, checkpoint: Int64,
        progress: RunStatistics
    ) throws(RederiveError) {
        try writeBatch { db in
            let now = SQLiteStore.now()
            try keepHistory(db, of: restores.map(\.seq), runID: runID, now: now)
            for restore in restores { try restore.summary.upsert(db, seq: restore.seq) }
            try saveProgress(db, runID: runID, statistics: progress, checkpointSeq: checkpoint)
        }
    }

    /// History kept: rows and the bytes of their summaries.
    func historySize(_ db: Database) throws -> (rows: Int, bytes: Int64) {
        let row = try Row.fetchOne(
            db, sql: "SELECT COUNT(*) AS n, COALESCE(SUM(length(summary_json)), 0) AS b FROM summary_history")
        return (row?["n"] ?? 0, row?["b"] ?? 0)
    }

    /// Deletes the history of all but the latest `keepRuns` runs that replaced summaries, and
    /// (when given) everything replaced before `before` (ISO 8601, UTC). Returns the rows removed.
    /// How many rows of each run went is added up in `store_info` (`PrunedHistory`), so a
    /// later revert of such a run says it has nothing left to restore.
    public func pruneHistory(keepRuns: Int?, before: String?) throws(RederiveError) -> Int {
        do {
            return try pool.write { db in
                var removed = 0
                if let keepRuns {
                    removed += try pruneHistory(
                        db,
                        where: """
                            replaced_by_run NOT IN (
                                SELECT DISTINCT replaced_by_run FROM summary_history
                                ORDER BY replaced_by_run DESC LIMIT ?)
                            """, arguments: [keepRuns])
                }
                if let before {
                    removed += try pruneHistory(
                        db, where: "julianday(replaced_at) < julianday(?)", arguments: [before])
                }
                return removed
            }
        } catch {
            throw .io("\(path): cannot prune the summary history: \(error)")
        }
    }

    /// Counts the history rows matching `condition` per run into `store_info`, then deletes them.
    private func pruneHistory(_ db: Database, where condition: String, arguments: StatementArguments) throws -> Int {
        try db.execute(
            sql: """
                INSERT INTO store_info (key, value)
                SELECT '\(PrunedHistory.keyPrefix)' || replaced_by_run, COUNT(*) FROM summary_history
                WHERE \(condition) GROUP BY replaced_by_run
                ON CONFLICT (key) DO UPDATE SET
                    value = CAST(CAST(store_info.value AS INTEGER) + CAST(excluded.value AS INTEGER) AS TEXT)
                """, arguments: arguments)
        try db.execute(sql: "DELETE FROM summary_history WHERE \(condition)", arguments: arguments)
        return db.changesCount
    }

    /// How many summaries run `run` replaced whose history `history --prune` deleted (0 when
    /// none, or when pruned by a build that did not count them).
    package func prunedHistoryCount(of run: Int64) throws(RederiveError) -> Int {
        do {
            return try pool.read {
                Int(
                    try String.fetchOne(
                        $0, sql: "SELECT value FROM store_info WHERE key = ?",
                        arguments: [PrunedHistory.key(run)]) ?? "") ?? 0
            }
        } catch {
            throw .io("\(path): cannot read the store's information: \(error)")
        }
    }
}
