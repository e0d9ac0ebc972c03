import Foundation
import GRDB
import RederiveCore

extension SQLiteStore {
    /// Writes one import batch in one transaction (with the run's progress: `progress`, the
    /// totals before the batch, plus the batch, `ImportPlanner.progress`), so a crash leaves
    /// either all of it or none of it. What each record gets is `ImportPlanner`'s decision.
    package func writeImportBatch(
        _ items: [ImportItem], runID: Int64, deriver: SummaryDeriver, allowDowngrade: Bool,
        progress: RunStatistics
    ) throws(RederiveError) -> ImportBatchCounts {
        // Committed: the WAL's new frames start for the disk while the next batch is written.
        defer { walWriteback.hint() }
        return try writeBatch { db in
            try db.execute(sql: "PRAGMA cache_size = -\(Self.importCacheKiB(for: items))")
            var counts = ImportBatchCounts()
            let now = SQLiteStore.now()
            var ledger = try SQLiteLedgerBatch(self, db, runID: runID, now: now)
            for item in items {
                switch item {
                case .row(let row):
                    let outcome = try upsert(
                        db, row, runID: runID, deriver: deriver, allowDowngrade: allowDowngrade, now: now)
                    counts.count(outcome)
                    if outcome != .newer { ledger.succeeded(id: row.record.id, file: row.file, line: row.line) }
                case .issue(let issue):
                    ledger.failed(issue)
                case .fileDone(let path, let hash, let bytes, let records):
                    if let hash {
                        try db.execute(
                            sql: """
                                INSERT OR REPLACE INTO imported_file
                                    (content_hash, path, bytes, records, run_id, imported_at)
                                VALUES (?, ?, ?, ?, ?, ?)
                                """, arguments: [hash, path, bytes, records, runID, now])
                    }
                }
            }
            counts.newFailures = try ledger.finish()
            try saveProgress(
                db, runID: runID, statistics: ImportPlanner.progress(progress, adding: counts), checkpointSeq: nil)
            return counts
        }
    }

    /// The writer's page cache while it imports, in KiB (`PRAGMA cache_size`). In SQLite's default
    /// 2 MB (31 pages of 64 KB) a batch's raw rooms (up to 16 MB of lines, `ExportBatchSource`)
    /// pushed the tables' and indexes' own pages out, to be read back from the WAL and written into
    /// it again, several times a batch: the bulk import made 129,000 `pread`s and 183,000 `pwrite`s
    /// where it now makes 44,000 and 135,000. At 16 MiB the pages every record updates are never
    /// the least recently used; what leaves the cache before the commit are a batch's first
    /// overflow pages, each written once (32 MiB wrote no fewer pages). The writer connection keeps
    /// the setting after the import (a later write in the same process runs with it).
    static let importCacheKiB = 16 << 10

    /// The cache for the batch of `items`: `importCacheKiB` unless one of its raw rooms is larger
    /// than that (a record of tens of MB, whose pages leave any such cache), then SQLite's default
    /// (2,000 KiB), which gives the larger cache's pages back before such a record's are written,
    /// so it costs no more memory than before.
    static func importCacheKiB(for items: [ImportItem]) -> Int {
        for case .row(let row) in items where row.rawSize > importCacheKiB << 10 { return 2_000 }
        return importCacheKiB
    }

    // Reads the stored state of `row`'s id and executes `ImportPlanner`'s decision.
    private func upsert(
        _ db: Database, _ row: ImportRow, runID: Int64, deriver: SummaryDeriver, allowDowngrade: Bool,
        now: String
    ) throws -> ImportPlanner.Outcome {
        let r = row.record
        let existing = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT record.seq, record.raw_hash, \(Self.selectText("record.room_name")), record.captured_at,
                           summary.summary_version, summary.fingerprint
                    FROM record LEFT JOIN summary ON summary.record_seq = record.seq WHERE record.id = ?
                    """), arguments: [r.id])
        let stored = existing.map {
            ImportPlanner.StoredState(
                seq: $0["seq"], rawHash: $0["raw_hash"], roomName: Self.text($0["room_name"]),
                capturedAt: $0["captured_at"], summaryVersion: $0["summary_version"], fingerprint: $0["fingerprint"])
        }
        let decision = ImportPlanner.decide(row, stored: stored, deriver: deriver, allowDowngrade: allowDowngrade)
        let sourceSummary = r.summary.map { String(decoding: $0, as: UTF8.self) }
        guard let stored else {
            try db.cachedStatement(
                sql: """
                    INSERT INTO record (id, room_name, captured_at, source_format_version, source_file, source_line,
                                        raw_hash, raw_size, source_summary, source_summary_version, stored_at)
                    VALUES (?, \(Self.bindText), ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                r.id, Self.textArgument(r.roomName), r.capturedAt, row.sourceFormatVersion, row.file, row.line,
                row.rawHash, row.rawSize, sourceSummary, r.summaryVersion, now,
            ])
            let seq = db.lastInsertedRowID
            try writeRaw(db, seq: seq, parts: row.parts)
            try writeSummary(
                db, seq: seq, summary: row.summary, json: row.summaryJSON, deriver: deriver, runID: runID, now: now,
                replacing: .nothing)
            return decision.outcome
        }
        let seq = stored.seq
        if decision.writesRecord {
            try db.cachedStatement(
                sql: """
                    UPDATE record SET room_name = \(Self.bindText), captured_at = ?, source_format_version = ?,
                        source_file = ?, source_line = ?, raw_hash = ?, raw_size = ?, source_summary = ?,
                        source_summary_version = ?, stored_at = ?
                    WHERE seq = ?
                    """
            ).execute(arguments: [
                Self.textArgument(r.roomName), r.capturedAt, row.sourceFormatVersion, row.file, row.line, row.rawHash,
                row.rawSize, sourceSummary, r.summaryVersion, now, seq,
            ])
        }
        if decision.writesRaw {
            try writeRaw(db, seq: seq, parts: row.parts)
        }
        if decision.writesSummary {
            try writeSummary(
                db, seq: seq, summary: row.summary, json: row.summaryJSON, deriver: deriver, runID: runID, now: now)
        }
        return decision.outcome
    }

    private func writeRaw(_ db: Database, seq: Int64, parts: RawRoomParts) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO raw_room (record_seq, core_model_offset, skeleton) VALUES (?, ?, ?)
                ON CONFLICT(record_seq) DO UPDATE SET core_model_offset = excluded.core_model_offset,
                    skeleton = excluded.skeleton
                """
        ).execute(integers: [seq, Int64(parts.coreModelOffset)], blob: parts.skeleton)
        try db.cachedStatement(
            sql: """
                INSERT INTO raw_core_model (record_seq, bytes) VALUES (?, ?)
                ON CONFLICT(record_seq) DO UPDATE SET bytes = excluded.bytes
                """
        ).execute(integers: [seq], blob: parts.coreModel)
    }

    /// Keeps the summary of record `?` in the history unless it is JSON `?` by version `?`
    /// and fingerprint `?` (`SummaryFreshness.sqlReplaced`).
    static let keepReplacedSQL =
        keepHistorySQL + " WHERE record_seq = ? AND "
        + SummaryFreshness.sqlReplaced(byJSON: "?") { _ in "?" }

    /// What a summary write replaces (the engine-neutral `SummaryReplacement`).
    package typealias Replaced = SummaryReplacement

    /// Upserts the derived columns of one record. The summary being replaced goes to the
    /// history first, in the same transaction, so `rederive revert` can restore it; a rewrite
    /// to identical values keeps nothing, and only a run's first replacement of a record is
    /// kept (what the record held before the run).
    func writeSummary(
        _ db: Database, seq: Int64, summary s: RoomSummary, json: [UInt8], deriver: SummaryDeriver,
        runID: Int64, now: String, replacing replaced: Replaced = .unknown, upsert: Statement? = nil
    ) throws {
        switch replaced {
        case .nothing, .sameSummary:
            break
        case .differentSummary:
            try db.cachedStatement(sql: Self.keepHistorySQL + " WHERE record_seq = ?")
                .execute(arguments: [runID, now, seq])
        case .unknown:
            try db.cachedStatement(sql: Self.keepReplacedSQL)
                .execute(arguments: [
                    runID, now, seq, String(decoding: json, as: UTF8.self), deriver.version, deriver.fingerprint,
                ])
        }
        try (upsert ?? db.cachedStatement(sql: StoredSummary.upsertSQL))
            .executeSummaryWrite(seq: seq, summary: s, json: json, deriver: deriver, runID: runID, now: now)
    }

    /// The raw room of a record, byte-exact as received, or nil for an unknown id.
    public func rawRoom(id: String) throws(RederiveError) -> [UInt8]? {
        do {
            return try pool.read { db -> [UInt8]? in
                guard
                    let row = try Row.fetchOne(
                        db,
                        sql: """
                            SELECT raw_room.core_model_offset, raw_room.skeleton, raw_core_model.bytes
                            FROM record JOIN raw_room ON raw_room.record_seq = record.seq
                            JOIN raw_core_model ON raw_core_model.record_seq = record.seq WHERE record.id = ?
                            """, arguments: [RecordIdentity.canonicalUUID(id) ?? id])
                else { return nil }
                let parts = RawRoomParts(
                    skeleton: [UInt8](row["skeleton"] as Data), coreModel: [UInt8](row["bytes"] as Data),
                    coreModelOffset: row["core_model_offset"])
                guard let raw = parts.joined() else {
                    throw RederiveError.io("\(path): record \(id): the stored raw room is damaged: \(parts.damage)")
                }
                return raw
            }
        } catch let error as RederiveError {
            throw error
        } catch {
            throw .io("\(path): cannot read: \(error)")
        }
    }

    /// Whether an export file with this content hash was already imported.
    package func hasImportedFile(contentHash: String) throws(RederiveError) -> Bool {
        do {
            return try pool.read { db in
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM imported_file WHERE content_hash = ?", arguments: [contentHash]) ?? false
            }
        } catch {
            throw .io("\(path): cannot read: \(error)")
        }
    }
}
