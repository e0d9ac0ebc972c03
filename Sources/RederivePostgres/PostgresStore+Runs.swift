import Foundation
import RederiveCore

extension PostgresStore {
    /// Records a run as the core's `RunStartPlan` decides, under the key's advisory lock (a
    /// derive's processes share its run here: they claim its ranges).
    package func beginRun(_ request: RunStartRequest) throws(RederiveError) -> RunStart {
        try io("record the run") {
            try writer.transaction { tx in
                var latest: LatestRun?
                if let resumeKey = request.resumeKey {
                    try tx.run("SELECT pg_advisory_xact_lock(hashtext($1))", .of(resumeKey))
                    if let row = try tx.run(
                        "SELECT \(LatestRun.columns) FROM run WHERE resume_key = $1 ORDER BY id DESC LIMIT 1",
                        .of(resumeKey)
                    ).rows.first {
                        latest = try LatestRun(
                            reading: { try row.get($0, as: Int64?.self) },
                            status: try row.get("status", as: String.self))
                    }
                }
                let plan = RunStartPlan.decide(request, latest: latest, sharesRuns: rangeClaims != nil)
                if let id = plan.reopens {
                    try tx.run(
                        "UPDATE run SET status = $1, finished_at = NULL, exit_status = NULL WHERE id = $2",
                        .of(RunStatus.running.rawValue, id))
                }
                if let id = plan.marksCrashed {
                    try tx.run("UPDATE run SET status = $1 WHERE id = $2", .of(RunStatus.crashed.rawValue, id))
                }
                guard plan.insertsRun else { return plan.start() }
                let (resumed, checkpoint, upper) = plan.newRun
                let row = try tx.run(
                    """
                    INSERT INTO run (command, pipeline, arguments, resume_key, status, started_at, summary_version,
                                     fingerprint, checkpoint_seq, upper_bound_seq, resumed_from, allow_downgrade)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id
                    """,
                    .of(
                        request.command, request.pipeline, request.arguments, request.resumeKey,
                        RunStatus.running.rawValue, Self.now(), request.deriver.version, request.deriver.fingerprint,
                        checkpoint, upper, resumed, request.allowDowngrade)
                ).rows[0]
                return plan.start(newRunID: try row.decode(Int64.self))
            }
        }
    }

    /// The runs recorded under `resumeKey`, oldest first.
    package func runs(resumeKey: String) throws(RederiveError) -> [RecordedRun] {
        try io("read the run history") {
            try reader.run("SELECT id, status FROM run WHERE resume_key = $1 ORDER BY id", .of(resumeKey)).rows.map {
                RecordedRun(id: try $0.get("id", as: Int64.self), status: try $0.get("status", as: String.self))
            }
        }
    }

    /// The id of the latest run in the history (0: none).
    package func lastRunID() throws(RederiveError) -> Int64 {
        try io("read the run history") {
            try reader.run("SELECT max(id) FROM run").rows.first?.decode(Int64?.self) ?? 0
        }
    }

    /// The summary-history rows left by runs after run `afterRun` for records with keys in
    /// `after...upTo` (exclusive, inclusive), by record key.
    package func replacedSummaries(
        afterRun: Int64, after: Int64, upTo: Int64
    ) throws(RederiveError) -> [ReplacedSummary] {
        try io("read the summary history") {
            try reader.run(
                """
                SELECT record_seq, replaced_by_run, summary_version, summary_json FROM summary_history
                WHERE record_seq > $1 AND record_seq <= $2 AND replaced_by_run > $3
                ORDER BY record_seq, replaced_by_run
                """, .of(after, upTo, afterRun)
            ).rows.map {
                ReplacedSummary(
                    seq: try $0.get("record_seq", as: Int64.self), run: try $0.get("replaced_by_run", as: Int64.self),
                    version: try $0.get("summary_version", as: Int.self),
                    json: try $0.get("summary_json", as: String.self))
            }
        }
    }

    /// The statement that saves a run's progress.
    static func progress(runID: Int64, _ s: RunStatistics, checkpointSeq: Int64?) -> PostgresSession.Statement {
        PostgresSession.Statement(
            """
            UPDATE run SET records_read = $1, records_done = $2, records_unchanged = $3, records_skipped = $4,
                           file_faults = $5, bytes_read = $6, records_newer = $7,
                           checkpoint_seq = COALESCE($8, checkpoint_seq)
            WHERE id = $9
            """,
            .of(
                s.recordsRead, s.recordsDone, s.recordsUnchanged, s.recordsSkipped, s.fileFaults, s.decodedBytes,
                s.recordsNewer, checkpointSeq, runID))
    }

    /// Sets the fixed upper bound of a run's keyset walk.
    package func setUpperBound(runID: Int64, upperBoundSeq: Int64) throws(RederiveError) {
        try io("record the run") {
            try writer.run("UPDATE run SET upper_bound_seq = $1 WHERE id = $2", .of(upperBoundSeq, runID))
        }
    }

    /// Records how a run ended. A run split into ranges ends when its last range is done
    /// or failed: until then a finishing process only refreshes the run's totals (summed
    /// over the ranges) and leaves it `running` for the others; a process that stops early
    /// (signal, error) marks it so only when no other process holds a live lease.
    package func finishRun(
        _ runID: Int64, status: RunStatus, exitStatus: Int32, statistics s: RunStatistics
    ) throws(RederiveError) {
        defer { refreshStatistics(runID: runID, statistics: s) }
        try io("record the end of the run") {
            try writer.transaction { tx in
                let ranges =
                    try tx.run(
                        """
                        SELECT count(*) AS total,
                               count(*) FILTER (WHERE state IN ('open', 'claimed')) AS pending,
                               count(*) FILTER (WHERE state = 'claimed' AND lease_until > now()
                                                AND claimed_by <> $2) AS held
                        FROM derive_range WHERE run_id = $1
                        """, .of(runID, workerName)
                    ).rows.first
                let total = try ranges?.get("total", as: Int.self) ?? 0
                guard total > 0 else {
                    try tx.run([Self.progress(runID: runID, s, checkpointSeq: nil)])
                    try tx.run(
                        "UPDATE run SET status = $1, exit_status = $2, finished_at = $3, duration_s = $4 WHERE id = $5",
                        .of(status.rawValue, Int(exitStatus), Self.now(), s.seconds, runID))
                    return
                }
                try tx.run("SELECT id FROM run WHERE id = $1 FOR UPDATE", .of(runID))
                try tx.run(
                    """
                    UPDATE run SET (records_read, records_done, records_unchanged, records_skipped, records_newer,
                                    bytes_read) =
                        (SELECT COALESCE(sum(records_read), 0), COALESCE(sum(records_done), 0),
                                COALESCE(sum(records_unchanged), 0), COALESCE(sum(records_skipped), 0),
                                COALESCE(sum(records_newer), 0), COALESCE(sum(bytes_read), 0)
                         FROM derive_range WHERE run_id = $1)
                    WHERE id = $1
                    """, .of(runID))
                let pending = try ranges?.get("pending", as: Int.self) ?? 0
                let held = try ranges?.get("held", as: Int.self) ?? 0
                if pending == 0 || (status != .completed && held == 0) {
                    try tx.run(
                        """
                        UPDATE run SET status = $1, exit_status = $2, finished_at = $3,
                            duration_s = GREATEST($4, EXTRACT(EPOCH FROM (now() - started_at::timestamptz))::float8)
                        WHERE id = $5
                        """, .of(status.rawValue, Int(exitStatus), Self.now(), s.seconds, runID))
                }
            }
        }
    }
}
