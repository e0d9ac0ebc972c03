import Foundation
import GRDB
import RederiveCore

/// Read-only look-ups of single records and open failures, for `rederive show` and
/// `rederive failures`. Nothing here writes: on a store opened with `readOnly: true` the
/// file stays byte-identical.
extension SQLiteStore {
    /// The schema version this build writes: the name of its newest migration.
    public static var schemaVersion: String { StoreSchema.migrator.migrations.last ?? "none" }

    /// The name of the summary-history table: not created by this build's migrations (a
    /// later one adds it); `record(id:)` reads it when present.
    public static let summaryHistoryTable = "summary_history"

    /// Everything stored about the record `id` (canonical UUID spelling or as stored), with
    /// its staleness for `deriver`; nil when no record has that id.
    public func record(id: String, deriver: SummaryDeriver = SummaryDeriver()) throws(RederiveError) -> StoredRecord? {
        let key = RecordIdentity.canonicalUUID(id) ?? id
        do {
            return try pool.read { db -> StoredRecord? in
                guard
                    let row = try Row.fetchOne(
                        db,
                        sql: """
                            SELECT record.seq, record.id, \(Self.selectText("record.room_name")), record.captured_at,
                                   record.source_format_version, record.source_file, record.source_line,
                                   record.raw_hash, record.raw_size, record.stored_at,
                                   summary.summary_version, summary.fingerprint, summary.derived_at, summary.run_id,
                                   summary.summary_json
                            FROM record LEFT JOIN summary ON summary.record_seq = record.seq WHERE record.id = ?
                            """, arguments: [key])
                else { return nil }
                var summary: StoredRecord.Summary?
                if let version = row["summary_version"] as Int? {
                    summary = .init(
                        summaryVersion: version, fingerprint: row["fingerprint"], derivedAt: row["derived_at"],
                        runID: row["run_id"], json: row["summary_json"])
                }
                let staleness = StoredRecord.Staleness(of: summary, for: deriver)
                let id: String = row["id"]
                return StoredRecord(
                    id: id, roomName: Self.text(row["room_name"]), capturedAt: row["captured_at"],
                    sourceFormatVersion: row["source_format_version"], sourceFile: row["source_file"],
                    sourceLine: row["source_line"], rawHash: row["raw_hash"], rawSize: row["raw_size"],
                    storedAt: row["stored_at"], summary: summary, staleness: staleness,
                    failures: try Self.fetchFailures(db, FailureFilter(recordID: id)),
                    history: try Self.summaryHistory(db, seq: row["seq"]))
            }
        } catch {
            throw .io("\(path): cannot read the record: \(error)")
        }
    }

    /// Open failures matching `filter`, in a stable order: by file, then line (file-level
    /// faults after the lines of their file; failures without a file last), then stage,
    /// code and ledger key.
    public func openFailures(matching filter: FailureFilter = FailureFilter()) throws(RederiveError) -> [OpenFailure] {
        do {
            return try pool.read { db in try Self.fetchFailures(db, filter) }
        } catch {
            throw .io("\(path): cannot read the failure ledger: \(error)")
        }
    }

    private static func fetchFailures(_ db: Database, _ filter: FailureFilter) throws -> [OpenFailure] {
        var arguments = SQLiteArguments()
        let whereClause = FailureAcknowledgements.conditions(filter, &arguments)
        return try Row.fetchAll(
            db,
            sql: """
                SELECT record_key, record_id, file, line, stage, code, \(selectText("message")), run_id, first_seen_at,
                    last_seen_at, acknowledged_at
                FROM \(FailureAcknowledgements.failureWithAck) \(whereClause)
                ORDER BY file IS NULL, file, line IS NULL, line, stage, code, record_key
                """, arguments: arguments.arguments
        ).map { row in
            OpenFailure(
                recordKey: row["record_key"], recordID: row["record_id"], file: row["file"], line: row["line"],
                stage: row["stage"], code: row["code"], message: text(row["message"]), runID: row["run_id"],
                firstSeenAt: row["first_seen_at"], lastSeenAt: row["last_seen_at"],
                acknowledgedAt: row["acknowledged_at"])
        }
    }

    /// The record's earlier summaries (`summary_history`: each replaced by a later run),
    /// oldest first; nil only for a store older than the history (it is migrated on the
    /// next writing command).
    static func summaryHistory(_ db: Database, seq: Int64) throws -> [StoredRecord.HistoryEntry]? {
        guard try db.tableExists(summaryHistoryTable) else { return nil }
        return try Row.fetchAll(
            db,
            sql: """
                SELECT summary_version, fingerprint, derived_at, run_id, summary_json, replaced_by_run, replaced_at
                FROM \(summaryHistoryTable) WHERE record_seq = ? ORDER BY replaced_by_run
                """, arguments: [seq]
        ).map { row in
            StoredRecord.HistoryEntry(
                summaryVersion: row["summary_version"], fingerprint: row["fingerprint"],
                derivedAt: row["derived_at"], runID: row["run_id"], json: row["summary_json"],
                replacedByRun: row["replaced_by_run"], replacedAt: row["replaced_at"])
        }
    }
}
