import RederiveCore

/// Read-only look-ups of single records and open failures on PostgreSQL (`rederive show`,
/// `failures`, `history --id`), giving what SQLite's `SQLiteStore+Inspect` gives for the same store.
extension PostgresStore {
    /// Everything stored about the record `id` (canonical UUID spelling or as stored), with
    /// its staleness for `deriver`; nil when no record has that id. One round trip: the
    /// record, its history and its open failures are asked for together.
    package func record(id: String, deriver: SummaryDeriver) throws(RederiveError) -> StoredRecord? {
        let key = RecordIdentity.canonicalUUID(id) ?? id
        let history = SummaryColumn.list(prefix: "h.")
        return try io("read the record") {
            // One snapshot for the three reads (a run committing in between cannot split them):
            // BEGIN, the reads and COMMIT pipelined together, one round trip still.
            let outcomes = try reader.run([
                PostgresSession.Statement("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"),
                PostgresSession.Statement(
                    """
                    SELECT record.id, record.room_name, record.room_name_utf8, record.captured_at,
                           record.source_format_version,
                           record.source_file, record.source_line, record.raw_hash, record.raw_size, record.stored_at,
                           summary.summary_version, summary.fingerprint, summary.derived_at, summary.run_id,
                           summary.summary_json
                    FROM record LEFT JOIN summary ON summary.record_seq = record.seq WHERE record.id = $1
                    """, .of(key)),
                PostgresSession.Statement(
                    """
                    SELECT \(history), h.replaced_by_run, h.replaced_at
                    FROM summary_history h JOIN record ON record.seq = h.record_seq
                    WHERE record.id = $1 ORDER BY h.replaced_by_run
                    """, .of(key)),
                Self.failureQuery(FailureFilter(recordID: key)),
                PostgresSession.Statement("COMMIT"),
            ])
            guard let row = outcomes[1].rows.first?.makeRandomAccess() else { return nil }
            var summary: StoredRecord.Summary?
            if let version = try row["summary_version"].decode(Int?.self) {
                summary = StoredRecord.Summary(
                    summaryVersion: version, fingerprint: try row["fingerprint"].decode(String.self),
                    derivedAt: try row["derived_at"].decode(String.self), runID: try row["run_id"].decode(Int64?.self),
                    json: try row["summary_json"].decode(String.self))
            }
            return StoredRecord(
                id: try row["id"].decode(String.self), roomName: try PostgresText.read(row, "room_name"),
                capturedAt: try row["captured_at"].decode(String.self),
                sourceFormatVersion: try row["source_format_version"].decode(Int.self),
                sourceFile: try row["source_file"].decode(String.self),
                sourceLine: try row["source_line"].decode(Int.self), rawHash: try row["raw_hash"].decode(String.self),
                rawSize: try row["raw_size"].decode(Int.self), storedAt: try row["stored_at"].decode(String.self),
                summary: summary, staleness: StoredRecord.Staleness(of: summary, for: deriver),
                failures: try outcomes[3].rows.map(Self.openFailure),
                history: try outcomes[2].rows.map { entry in
                    let h = entry.makeRandomAccess()
                    return StoredRecord.HistoryEntry(
                        summaryVersion: try h["summary_version"].decode(Int.self),
                        fingerprint: try h["fingerprint"].decode(String.self),
                        derivedAt: try h["derived_at"].decode(String.self), runID: try h["run_id"].decode(Int64?.self),
                        json: try h["summary_json"].decode(String.self),
                        replacedByRun: try h["replaced_by_run"].decode(Int64?.self),
                        replacedAt: try h["replaced_at"].decode(String?.self))
                })
        }
    }

    /// Open failures matching `filter`, in SQLite's order (`SQLiteStore.openFailures`).
    package func openFailures(matching filter: FailureFilter) throws(RederiveError) -> [OpenFailure] {
        try io("read the failure ledger") {
            let query = Self.failureQuery(filter)
            return try reader.run(query.sql, query.binds).rows.map(Self.openFailure)
        }
    }

    /// The ledger query for `filter`: SQLite's conditions, and its order with text compared
    /// bytewise (`COLLATE "C"`, as SQLite's BINARY) whatever the database's collation.
    private static func failureQuery(_ filter: FailureFilter) -> PostgresSession.Statement {
        var args = SQLArguments()
        let whereClause = FailureAcknowledgements.conditions(filter, &args)
        return PostgresSession.Statement(
            """
            SELECT record_key, record_id, file, line, stage, code, message, message_utf8, run_id, first_seen_at,
                   last_seen_at, acknowledged_at
            FROM \(FailureAcknowledgements.failureWithAck) \(whereClause)
            ORDER BY file IS NULL, file COLLATE "C", line IS NULL, line, stage COLLATE "C", code COLLATE "C",
                     record_key COLLATE "C"
            """, args.binds)
    }

    private static func openFailure(_ row: PostgresRow) throws -> OpenFailure {
        let r = row.makeRandomAccess()
        return OpenFailure(
            recordKey: try r["record_key"].decode(String.self), recordID: try r["record_id"].decode(String?.self),
            file: try r["file"].decode(String?.self), line: try r["line"].decode(Int?.self),
            stage: try r["stage"].decode(String.self), code: try r["code"].decode(String.self),
            message: try PostgresText.read(r, "message"), runID: try r["run_id"].decode(Int64.self),
            firstSeenAt: try r["first_seen_at"].decode(String.self),
            lastSeenAt: try r["last_seen_at"].decode(String.self),
            acknowledgedAt: try r["acknowledged_at"].decode(String?.self))
    }
}
