import RederiveCore

/// A batch's changes to the failure ledger: `LedgerPlanner` decides them (the rules every
/// engine shares); `statements` reads the open entries they need and turns them into SQL.
struct PostgresLedgerBatch {
    private var planner = LedgerPlanner()

    /// A record went through: its keys are cleared.
    mutating func succeeded(id: String, file: String? = nil, line: Int? = nil) {
        planner.succeeded(id: id, file: file, line: line)
    }

    /// A record failed: its entry is added or refreshed.
    mutating func failed(_ issue: RecordIssue) { planner.failed(issue) }

    /// The statements, and how many failures are new; reads the open entries of the
    /// batch's failure keys first (one round trip, only when there are failures).
    func statements(
        _ tx: PostgresSession.Transaction, runID: Int64, now: String
    ) throws -> ([PostgresSession.Statement], Int) {
        let open = try openEntriesStatement.map { try tx.run([$0])[0] }
        return try statements(openEntries: open, runID: runID, now: now)
    }

    /// The read of the open entries of the batch's failure keys (nil: no failures), for a
    /// caller that pipelines it with other statements.
    var openEntriesStatement: PostgresSession.Statement? {
        let keys = planner.failureKeys
        guard !keys.isEmpty else { return nil }
        return PostgresSession.Statement(
            "SELECT record_key, code FROM failure WHERE record_key = ANY($1::text[])", .of(keys))
    }

    /// The statements, and how many failures are new, given what `openEntriesStatement` read.
    func statements(
        openEntries: PostgresSession.Outcome?, runID: Int64, now: String
    ) throws -> ([PostgresSession.Statement], Int) {
        var statements: [PostgresSession.Statement] = []
        var open: [String: String] = [:]
        for row in openEntries?.rows ?? [] {
            open[try row.get("record_key")] = try row.get("code")
        }
        let plan = planner.plan(openCodes: open)
        for (key, issue) in plan.upserts {
            statements.append(
                PostgresSession.Statement(
                    """
                    INSERT INTO failure (record_key, record_id, file, line, stage, code, message, message_utf8,
                                         run_id, first_seen_at, last_seen_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $10, $8, $9, $9)
                    ON CONFLICT (record_key) DO UPDATE SET record_id = excluded.record_id, file = excluded.file,
                        line = excluded.line, stage = excluded.stage, code = excluded.code,
                        message = excluded.message, message_utf8 = excluded.message_utf8, run_id = excluded.run_id,
                        last_seen_at = excluded.last_seen_at,
                        first_seen_at = CASE WHEN failure.code = excluded.code THEN failure.first_seen_at
                                             ELSE excluded.first_seen_at END
                    """,
                    .of(
                        key, issue.id, issue.file, issue.line, issue.stage.rawValue, issue.code.rawValue,
                        PostgresText.column(issue.message), runID, now, PostgresText.exact(issue.message))))
        }
        if !plan.cleared.isEmpty {
            statements.append(
                PostgresSession.Statement("DELETE FROM failure WHERE record_key = ANY($1::text[])", .of(plan.cleared)))
        }
        return (statements, plan.newFailures)
    }
}
