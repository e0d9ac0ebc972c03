import GRDB
import RederiveCore

extension SQLiteStore {
    /// Records a run as the core's `RunStartPlan` decides (one process writes at a time
    /// here: a run left `running` crashed, and a derive continues it as a new run).
    package func beginRun(_ request: RunStartRequest) throws(RederiveError) -> RunStart {
        do {
            return try pool.write { db in
                var latest: LatestRun?
                if let resumeKey = request.resumeKey,
                    let row = try Row.fetchOne(
                        db, sql: "SELECT \(LatestRun.columns) FROM run WHERE resume_key = ? ORDER BY id DESC LIMIT 1",
                        arguments: [resumeKey])
                {
                    latest = LatestRun(reading: { row[$0] }, status: row["status"])
                }
                let plan = RunStartPlan.decide(request, latest: latest, sharesRuns: rangeClaims != nil)
                if let id = plan.reopens {
                    try db.execute(
                        sql: "UPDATE run SET status = ?, finished_at = NULL, exit_status = NULL WHERE id = ?",
                        arguments: [RunStatus.running.rawValue, id])
                }
                if let id = plan.marksCrashed {
                    try db.execute(
                        sql: "UPDATE run SET status = ? WHERE id = ?", arguments: [RunStatus.crashed.rawValue, id])
                }
                guard plan.insertsRun else { return plan.start() }
                let (resumed, checkpoint, upper) = plan.newRun
                try db.execute(
                    sql: """
                        INSERT INTO run (command, pipeline, arguments, resume_key, status, started_at, summary_version,
                                         fingerprint, checkpoint_seq, upper_bound_seq, resumed_from, allow_downgrade)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        request.command, request.pipeline, request.arguments, request.resumeKey,
                        RunStatus.running.rawValue, SQLiteStore.now(), request.deriver.version,
                        request.deriver.fingerprint,
                        checkpoint, upper, resumed, request.allowDowngrade,
                    ])
                return plan.start(newRunID: db.lastInsertedRowID)
            }
        } catch {
            throw .io("\(path): cannot record the run: \(error)")
        }
    }

    /// The runs recorded under `resumeKey`, oldest first.
    package func runs(resumeKey: String) throws(RederiveError) -> [RecordedRun] {
        do {
            return try pool.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT id, status FROM run WHERE resume_key = ? ORDER BY id", arguments: [resumeKey]
                ).map { RecordedRun(id: $0["id"], status: $0["status"]) }
            }
        } catch {
            throw .io("\(path): cannot read the run history: \(error)")
        }
    }

    /// The id of the latest run in the history (0: none).
    package func lastRunID() throws(RederiveError) -> Int64 {
        do { return try pool.read { try Int64.fetchOne($0, sql: "SELECT MAX(id) FROM run") ?? 0 } } catch {
            throw .io("\(path): cannot read the run history: \(error)")
        }
    }

    /// The summary-history rows left by runs after run `afterRun` for records with keys in
    /// `after...upTo` (exclusive, inclusive), by record key.
    package func replacedSummaries(
        afterRun: Int64, after: Int64, upTo: Int64
    ) throws(RederiveError) -> [ReplacedSummary] {
        do {
            return try pool.read { db in
                // By run first: the history's key is (run, record), so each later run is one
                // range probe instead of a scan of every later run's rows per batch.
                let runs = try Int64.fetchAll(db, sql: "SELECT id FROM run WHERE id > ?", arguments: [afterRun])
                guard !runs.isEmpty else { return [] }
                return try Row.fetchAll(
                    db,
                    sql: """
                        SELECT record_seq, replaced_by_run, summary_version, summary_json FROM summary_history
                        WHERE replaced_by_run IN (\(runs.map { _ in "?" }.joined(separator: ",")))
                          AND record_seq > ? AND record_seq <= ?
                        ORDER BY record_seq, replaced_by_run
                        """, arguments: StatementArguments(runs) + [after, upTo]
                ).map {
                    ReplacedSummary(
                        seq: $0["record_seq"], run: $0["replaced_by_run"], version: $0["summary_version"],
                        json: $0["summary_json"])
                }
            }
        } catch {
            throw .io("\(path): cannot read the summary history: \(error)")
        }
    }

    /// Runs one batch write (its records, ledger and progress) in one write transaction, so
    /// a crash leaves all of it or none; a database error is "cannot write the batch".
    func writeBatch<T>(_ body: (Database) throws -> T) throws(RederiveError) -> T {
        do {
            return try pool.write(body)
        } catch let error as RederiveError {
            throw error
        } catch {
            throw .io("\(path): cannot write the batch: \(error)")
        }
    }

    /// Saves a run's progress inside the batch's transaction (a cached statement, bound through
    /// SQLite's C API: it runs once a batch, and compiling it each time cost the writer 3%).
    func saveProgress(_ db: Database, runID: Int64, statistics s: RunStatistics, checkpointSeq: Int64?) throws {
        let counts = [s.recordsRead, s.recordsDone, s.recordsUnchanged, s.recordsSkipped, s.fileFaults]
        try db.cachedStatement(sql: Self.saveProgressSQL).execute(
            bound: counts.map { .integer(Int64($0)) } + [
                .integer(s.decodedBytes), .integer(Int64(s.recordsNewer)), checkpointSeq.map { .integer($0) } ?? .null,
                .integer(runID),
            ])
    }

    private static let saveProgressSQL = """
        UPDATE run SET records_read = ?, records_done = ?, records_unchanged = ?, records_skipped = ?,
                       file_faults = ?, bytes_read = ?, records_newer = ?,
                       checkpoint_seq = COALESCE(?, checkpoint_seq)
        WHERE id = ?
        """

    /// Sets the fixed upper bound of a run's keyset walk.
    package func setUpperBound(runID: Int64, upperBoundSeq: Int64) throws(RederiveError) {
        do {
            try pool.write { db in
                try db.execute(
                    sql: "UPDATE run SET upper_bound_seq = ? WHERE id = ?", arguments: [upperBoundSeq, runID])
            }
        } catch {
            throw .io("\(path): cannot record the run: \(error)")
        }
    }

    /// Records how a run ended.
    public func finishRun(
        _ runID: Int64, status: RunStatus, exitStatus: Int32, statistics s: RunStatistics
    ) throws(RederiveError) {
        do {
            try pool.write { db in
                try saveProgress(db, runID: runID, statistics: s, checkpointSeq: nil)
                try db.execute(
                    sql: "UPDATE run SET status = ?, exit_status = ?, finished_at = ?, duration_s = ? WHERE id = ?",
                    arguments: [status.rawValue, exitStatus, SQLiteStore.now(), s.seconds, runID])
            }
        } catch {
            throw .io("\(path): cannot record the end of the run: \(error)")
        }
    }

    // MARK: - Failure ledger

    /// The ledger key of an issue (`LedgerPlanner.key(for:)`).
    package static func ledgerKey(_ issue: RecordIssue) -> String { LedgerPlanner.key(for: issue) }

    /// Adds (or refreshes) an open failure, as a batch of one. Returns true when it was not
    /// already open.
    @discardableResult
    func recordFailure(_ db: Database, _ issue: RecordIssue, runID: Int64, now: String) throws -> Bool {
        var batch = try SQLiteLedgerBatch(self, db, runID: runID, now: now)
        batch.failed(issue)
        return try batch.finish() == 1
    }

    /// Adds or refreshes the open failure of `issue` under `key`.
    func upsertFailure(_ db: Database, _ issue: RecordIssue, key: String, runID: Int64, now: String) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO failure
                    (record_key, record_id, file, line, stage, code, message, run_id, first_seen_at, last_seen_at)
                VALUES (?, ?, ?, ?, ?, ?, \(Self.bindText), ?, ?, ?)
                ON CONFLICT(record_key) DO UPDATE SET record_id = excluded.record_id, file = excluded.file,
                    line = excluded.line, stage = excluded.stage, code = excluded.code, message = excluded.message,
                    run_id = excluded.run_id, last_seen_at = excluded.last_seen_at,
                    first_seen_at = CASE WHEN failure.code = excluded.code THEN failure.first_seen_at
                        ELSE excluded.first_seen_at END
                """
        ).execute(arguments: [
            key, issue.id, issue.file, issue.line, issue.stage.rawValue, issue.code.rawValue,
            Self.textArgument(issue.message), runID, now, now,
        ])
    }

    /// The ledger keys a record that now went through clears (`LedgerPlanner.clearedKeys`).
    package static func clearedKeys(id: String, file: String?, line: Int?) -> [String] {
        LedgerPlanner.clearedKeys(id: id, file: file, line: line)
    }

    /// Deletes ledger entries in one statement per chunk (not one per record: a batch of
    /// 500 successes would otherwise cost 500-1000 statements).
    func clearFailures(_ db: Database, keys: Set<String>) throws {
        let all = Array(keys)
        var start = 0
        while start < all.count {
            let chunk = all[start..<min(start + 500, all.count)]
            try db.execute(
                sql: "DELETE FROM failure WHERE record_key IN (\(chunk.map { _ in "?" }.joined(separator: ",")))",
                arguments: StatementArguments(Array(chunk)))
            start += 500
        }
    }
}
