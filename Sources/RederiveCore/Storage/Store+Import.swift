import Foundation
import GRDB

/// A record ready to be stored: upgraded, derived, its raw room split for storage.
public struct ImportRow: Sendable {
    /// Source file and line.
    public var file: String
    /// 1-based line.
    public var line: Int
    /// The record in the current format.
    public var record: ExportRecordV3
    /// The format version it was written in.
    public var sourceFormatVersion: Int
    /// The raw room, split for storage.
    public var parts: RawRoomParts
    /// Content hash of the raw room bytes (hex).
    public var rawHash: String
    /// Size of the raw room in bytes.
    public var rawSize: Int
    /// The derived summary and its JSON.
    public var summary: RoomSummary
    /// The summary's JSON text.
    public var summaryJSON: [UInt8]
}

/// One entry of an import batch, in file order.
public enum ImportItem: Sendable {
    /// A good record.
    case row(ImportRow)
    /// A skipped record or a file fault.
    case issue(RecordIssue)
    /// A file fully read (registered by content hash when `contentHash` is set).
    case fileDone(path: String, contentHash: String?, bytes: Int64, records: Int)
}

/// What one import batch did.
public struct ImportBatchCounts: Sendable, Equatable {
    /// New records stored.
    public var inserted = 0
    /// Records whose raw data changed: updated and re-derived.
    public var updated = 0
    /// Records with the same raw data whose summary was stale: re-derived.
    public var rederived = 0
    /// Records already stored exactly so.
    public var unchanged = 0
    /// Failures new to the ledger.
    public var newFailures = 0
    /// Records whose summary a newer rederive derived: left untouched.
    public var newer = 0

    /// No counts yet.
    package init() {}

    /// Adds another batch's counts.
    package mutating func add(_ c: ImportBatchCounts) {
        inserted += c.inserted
        updated += c.updated
        rederived += c.rederived
        unchanged += c.unchanged
        newFailures += c.newFailures
        newer += c.newer
    }
}

extension Store {
    /// Writes one import batch in one transaction (with the run's progress), so a crash
    /// leaves either all of it or none of it.
    package func writeImportBatch(
        _ items: [ImportItem], runID: Int64, deriver: SummaryDeriver, allowDowngrade: Bool,
        progress: RunStatistics
    ) throws(RederiveError) -> ImportBatchCounts {
        do {
            return try pool.write { db in
                var counts = ImportBatchCounts()
                let now = Store.now()
                var ledger = try LedgerBatch(self, db, runID: runID, now: now)
                for item in items {
                    switch item {
                    case .row(let row):
                        switch try upsert(
                            db, row, runID: runID, deriver: deriver, allowDowngrade: allowDowngrade,
                            now: now)
                        {
                        case .newer:
                            counts.newer += 1
                            continue
                        case .inserted: counts.inserted += 1
                        case .updated: counts.updated += 1
                        case .rederived: counts.rederived += 1
                        case .unchanged: counts.unchanged += 1
                        }
                        ledger.succeeded(id: row.record.id, file: row.file, line: row.line)
                    case .issue(let issue):
                        if try ledger.failed(issue) { counts.newFailures += 1 }
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
                try ledger.finish()
                try saveProgress(db, runID: runID, statistics: progress, checkpointSeq: nil)
                return counts
            }
        } catch let error as RederiveError {
            throw error
        } catch {
            throw .io("\(path): cannot write the batch: \(error)")
        }
    }

    private enum UpsertResult { case inserted, updated, rederived, unchanged, newer }

    private func upsert(
        _ db: Database, _ row: ImportRow, runID: Int64, deriver: SummaryDeriver, allowDowngrade: Bool,
        now: String
    ) throws -> UpsertResult {
        let r = row.record
        let existing = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT record.seq, record.raw_hash, \(Self.selectText("record.room_name")), record.captured_at,
                           summary.summary_version, summary.fingerprint
                    FROM record LEFT JOIN summary ON summary.record_seq = record.seq WHERE record.id = ?
                    """), arguments: [r.id])
        let sourceSummary = r.summary.map { String(decoding: $0, as: UTF8.self) }
        guard let existing else {
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
            return .inserted
        }
        let seq: Int64 = existing["seq"]
        // A summary from a newer rederive is never rolled back by an older one, unless asked.
        if !allowDowngrade, let stored = existing["summary_version"] as Int?, stored > deriver.version { return .newer }
        let sameRaw = (existing["raw_hash"] as String) == row.rawHash
        let sameMeta =
            Self.text(existing["room_name"]) == r.roomName && (existing["captured_at"] as String) == r.capturedAt
        let fresh =
            (existing["summary_version"] as Int?) == deriver.version
            && (existing["fingerprint"] as String?) == deriver.fingerprint
        if sameRaw && sameMeta && fresh { return .unchanged }
        if !sameRaw || !sameMeta {
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
        if !sameRaw {
            try writeRaw(db, seq: seq, parts: row.parts)
        }
        if !sameRaw || !fresh {
            try writeSummary(
                db, seq: seq, summary: row.summary, json: row.summaryJSON, deriver: deriver, runID: runID, now: now)
        }
        // A changed room name or capture time is an update too, as a changed room (it was
        // counted unchanged: "0 updated, 2 unchanged" after a rename).
        return sameRaw && sameMeta ? .rederived : .updated
    }

    private func writeRaw(_ db: Database, seq: Int64, parts: RawRoomParts) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO raw_room (record_seq, core_model_offset, skeleton) VALUES (?, ?, ?)
                ON CONFLICT(record_seq) DO UPDATE SET core_model_offset = excluded.core_model_offset,
                    skeleton = excluded.skeleton
                """
        ).execute(arguments: [seq, parts.coreModelOffset, Data(parts.skeleton)])
        try db.cachedStatement(
            sql: """
                INSERT INTO raw_core_model (record_seq, bytes) VALUES (?, ?)
                ON CONFLICT(record_seq) DO UPDATE SET bytes = excluded.bytes
                """
        ).execute(arguments: [seq, Data(parts.coreModel)])
    }

    /// One summary row's upsert (built once: it runs for every record written).
    static let summaryUpsertSQL = """
        INSERT INTO summary (record_seq, summary_version, fingerprint, derived_at, run_id, floor_area_sqm,
            ceiling_height_m, wall_count, object_count, door_count, window_count, opening_count, volume_m3,
            floor_area_method, summary_json)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(record_seq) DO UPDATE SET \(SummaryColumns.upsertAssignments)
        """

    /// What a summary write replaces, as far as the writer knows.
    package enum Replaced: Sendable {
        /// Nothing: the record has no summary yet.
        case nothing
        /// A summary with other values (or version, or fingerprint): kept in the history.
        case differentSummary
        /// Not known here: kept in the history unless identical (compared in SQL).
        case unknown
    }

    /// Upserts the derived columns of one record. The summary being replaced goes to the
    /// history first, in the same transaction, so `rederive revert` can restore it; a rewrite
    /// to identical values keeps nothing, and only a run's first replacement of a record is
    /// kept (what the record held before the run).
    func writeSummary(
        _ db: Database, seq: Int64, summary s: RoomSummary, json: [UInt8], deriver: SummaryDeriver,
        runID: Int64, now: String, replacing replaced: Replaced = .unknown
    ) throws {
        let text = String(decoding: json, as: UTF8.self)
        switch replaced {
        case .nothing:
            break
        case .differentSummary:
            try db.cachedStatement(sql: Self.keepHistorySQL + " WHERE record_seq = ?")
                .execute(arguments: [runID, now, seq])
        case .unknown:
            try db.cachedStatement(
                sql: Self.keepHistorySQL
                    + " WHERE record_seq = ? AND (summary_json <> ? OR summary_version <> ? OR fingerprint <> ?)"
            ).execute(arguments: [runID, now, seq, text, deriver.version, deriver.fingerprint])
        }
        try db.cachedStatement(sql: Self.summaryUpsertSQL).execute(arguments: [
            seq, deriver.version, deriver.fingerprint, now, runID, s.estimatedFloorAreaSqm,
            s.ceilingHeightM, s.wallCount, s.objectCount, s.doorCount, s.windowCount,
            s.openingCount, s.volumeM3, s.floorAreaMethod.rawValue, text,
        ])
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
