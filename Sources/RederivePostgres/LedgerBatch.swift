import RederiveCore

/// A batch's changes to the failure ledger, kept in batch order with SQLite's rules: a
/// record that went through clears its keys (at the end, in one statement), unless a later
/// failure of the same key in the batch keeps it; a failure is new unless the same key was
/// already open with the same code.
struct LedgerBatch {
    private var issues: [RecordIssue] = []
    private var cleared = Set<String>()
    private var anySuccess = false

    /// A record went through: its keys are cleared.
    mutating func succeeded(_ keys: [String]) {
        anySuccess = true
        cleared.formUnion(keys)
    }

    /// A record failed: its entry is added or refreshed.
    mutating func failed(_ issue: RecordIssue) {
        cleared.remove(Store.ledgerKey(issue))
        issues.append(issue)
    }

    /// The statements, and how many failures are new; reads the open entries of the
    /// batch's failure keys first (one round trip, only when there are failures).
    func statements(
        _ tx: PostgresSession.Transaction, runID: Int64, now: String
    ) throws -> ([PostgresSession.Statement], Int) {
        var statements: [PostgresSession.Statement] = []
        var added = 0
        if !issues.isEmpty {
            let keys = issues.map(Store.ledgerKey)
            var open: [String: String] = [:]
            for row in try tx.run("SELECT record_key, code FROM failure WHERE record_key = ANY($1::text[])", .of(keys))
                .rows
            {
                open[try row.get("record_key")] = try row.get("code")
            }
            for (issue, key) in zip(issues, keys) {
                if open[key] != issue.code.rawValue { added += 1 }
                open[key] = issue.code.rawValue
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
        }
        if anySuccess && !cleared.isEmpty {
            statements.append(
                PostgresSession.Statement(
                    "DELETE FROM failure WHERE record_key = ANY($1::text[])", .of(Array(cleared).sorted())))
        }
        return (statements, added)
    }
}
