import Foundation
import RederiveCore

extension PostgresStore {
    /// Writes one import batch in one transaction with `ImportPlanner`'s decisions, in a few round
    /// trips whatever its size: the stored state of the batch's ids, keys for the new
    /// records, then every write as multi-row statements from arrays, pipelined with COMMIT.
    package func writeImportBatch(
        _ items: [ImportItem], runID: Int64, deriver: SummaryDeriver, allowDowngrade: Bool,
        progress: RunStatistics
    ) throws(RederiveError) -> ImportBatchCounts {
        try write("write the batch") { tx in
            try importBatch(
                tx, items, runID: runID, deriver: deriver, allowDowngrade: allowDowngrade,
                progress: progress)
        }
    }

    private func importBatch(
        _ tx: PostgresSession.Transaction, _ items: [ImportItem], runID: Int64, deriver: SummaryDeriver,
        allowDowngrade: Bool, progress: RunStatistics
    ) throws -> ImportBatchCounts {
        var counts = ImportBatchCounts()
        let now = Self.now()
        let rows: [ImportRow] = items.compactMap { if case .row(let row) = $0 { row } else { nil } }
        var existing: [String: ImportPlanner.StoredState] = [:]
        if !rows.isEmpty {
            for row in try tx.run(
                """
                SELECT record.seq, record.id, record.raw_hash, record.room_name, record.room_name_utf8,
                       record.captured_at,
                       summary.summary_version, summary.fingerprint
                FROM record LEFT JOIN summary ON summary.record_seq = record.seq WHERE record.id = ANY($1::text[])
                """, .of(rows.map(\.record.id))
            ).rows {
                existing[try row.get("id")] = ImportPlanner.StoredState(
                    seq: try row.get("seq"), rawHash: try row.get("raw_hash"),
                    roomName: try PostgresText.read(row.makeRandomAccess(), "room_name"),
                    capturedAt: try row.get("captured_at"), summaryVersion: try row.get("summary_version"),
                    fingerprint: try row.get("fingerprint"))
            }
        }
        let newCount = rows.filter { existing[$0.record.id] == nil }.count
        var newSeqs: [Int64] = []
        if newCount > 0 {
            newSeqs = try tx.run(
                "SELECT nextval(pg_get_serial_sequence('record', 'seq')) FROM generate_series(1, $1)", .of(newCount)
            ).rows.map { try $0.decode(Int64.self) }
        }
        var recordRows: [(seq: Int64, row: ImportRow)] = []  // inserted or metadata changed
        var rawRows: [(seq: Int64, parts: RawRoomParts)] = []  // replacing a stored one
        var newRawRows: [(seq: Int64, parts: RawRoomParts)] = []
        var summaries: [SummaryWrite] = []
        var ledger = PostgresLedgerBatch()
        var files: [(hash: String, path: String, bytes: Int64, records: Int)] = []
        var next = 0
        for item in items {
            switch item {
            case .row(let row):
                let r = row.record
                let old = existing[r.id]
                let decision = ImportPlanner.decide(
                    row, stored: old, deriver: deriver, allowDowngrade: allowDowngrade)
                counts.count(decision.outcome)
                guard decision.clearsFailures else { continue }
                let seq: Int64
                if let old {
                    seq = old.seq
                } else {
                    seq = newSeqs[next]
                    next += 1
                }
                if decision.writesRecord { recordRows.append((seq, row)) }
                if decision.writesRaw {
                    // A new record's raw room goes in by binary COPY after the batch's statements;
                    // a replaced one by its upsert.
                    if old == nil { newRawRows.append((seq, row.parts)) } else { rawRows.append((seq, row.parts)) }
                }
                if decision.writesSummary { summaries.append(Self.summaryWrite(seq: seq, row, stored: old)) }
                ledger.succeeded(id: r.id, file: row.file, line: row.line)
            case .issue(let issue):
                ledger.failed(issue)
            case .fileDone(let path, let hash, let bytes, let records):
                if let hash { files.append((hash, path, bytes, records)) }
            }
        }
        var statements: [PostgresSession.Statement] = []
        if !recordRows.isEmpty { statements.append(Self.recordUpsert(recordRows, now: now)) }
        if !rawRows.isEmpty { statements += Self.rawUpserts(rawRows) }
        statements += summaryStatements(summaries, deriver: deriver, runID: runID, now: now)
        let (ledgerStatements, added) = try ledger.statements(tx, runID: runID, now: now)
        counts.newFailures = added
        statements += ledgerStatements
        for file in files {
            statements.append(
                PostgresSession.Statement(
                    """
                    INSERT INTO imported_file (content_hash, path, bytes, records, run_id, imported_at)
                    VALUES ($1, $2, $3, $4, $5, $6)
                    ON CONFLICT (content_hash) DO UPDATE SET path = excluded.path, bytes = excluded.bytes,
                        records = excluded.records, run_id = excluded.run_id, imported_at = excluded.imported_at
                    """, .of(file.hash, file.path, file.bytes, file.records, runID, now)))
        }
        statements.append(
            Self.progress(runID: runID, ImportPlanner.progress(progress, adding: counts), checkpointSeq: nil))
        try tx.run(statements)
        if !newRawRows.isEmpty { try Self.copyNewRaw(tx, newRawRows) }
        return counts
    }

    /// The summary write of an imported record. One stored without a summary (every new record)
    /// has none to keep in the history, so no statement looks for one: on 40,000 new records that
    /// search cost the server 0.31 s of CPU, against 5.0 s for the whole import.
    static func summaryWrite(seq: Int64, _ row: ImportRow, stored: ImportPlanner.StoredState?) -> SummaryWrite {
        SummaryWrite(
            seq: seq, summary: row.summary, json: row.summaryJSON,
            replacing: stored?.summaryVersion != nil ? .unknown : .nothing)
    }

    // New records and changed metadata, one statement (the record's columns from arrays).
    private static func recordUpsert(_ rows: [(seq: Int64, row: ImportRow)], now: String) -> PostgresSession.Statement {
        let r = rows.map(\.row)
        return PostgresSession.Statement(
            """
            INSERT INTO record (seq, id, room_name, room_name_utf8, captured_at, source_format_version, source_file,
                                source_line, raw_hash, raw_size, source_summary, source_summary_version, stored_at)
            SELECT n.seq, n.id, n.name, NULLIF(n.name_utf8, ''::bytea), n.captured, n.format, n.file, n.line, n.hash,
                   n.size, CASE WHEN n.has_summary THEN n.summary END, n.summary_version, $1
            FROM unnest($2::int8[], $3::text[], $4::text[], $5::text[], $6::int8[], $7::text[], $8::int8[], $9::text[],
                        $10::int8[], $11::bool[], $12::text[], $13::int8[], $14::bytea[])
                 AS n(seq, id, name, captured, format, file, line, hash, size, has_summary, summary, summary_version,
                      name_utf8)
            ON CONFLICT (seq) DO UPDATE SET room_name = excluded.room_name, room_name_utf8 = excluded.room_name_utf8,
                captured_at = excluded.captured_at,
                source_format_version = excluded.source_format_version, source_file = excluded.source_file,
                source_line = excluded.source_line, raw_hash = excluded.raw_hash, raw_size = excluded.raw_size,
                source_summary = excluded.source_summary, source_summary_version = excluded.source_summary_version,
                stored_at = excluded.stored_at
            """,
            .of(
                now, rows.map(\.seq), r.map(\.record.id), r.map { PostgresText.column($0.record.roomName) },
                r.map(\.record.capturedAt),
                r.map(\.sourceFormatVersion), r.map(\.file), r.map(\.line), r.map(\.rawHash), r.map(\.rawSize),
                r.map { $0.record.summary != nil },
                r.map { $0.record.summary.map { String(decoding: $0, as: UTF8.self) } ?? "" },
                r.map(\.record.summaryVersion), PostgresText.exactArray(r.map(\.record.roomName))))
    }

    // The raw room, byte-exact: skeleton and core model as bytea, from arrays. `unnest` in the
    // select list streams the rows (a ProjectSet); in FROM it would first be materialized,
    // spilling a batch's megabytes of raw rooms to a temporary file on the server.
    private static func rawUpserts(_ rows: [(seq: Int64, parts: RawRoomParts)]) -> [PostgresSession.Statement] {
        let seqs = rows.map(\.seq)
        return [
            PostgresSession.Statement(
                """
                INSERT INTO raw_room (record_seq, core_model_offset, skeleton)
                SELECT unnest($1::int8[]), unnest($2::int8[]), unnest($3::bytea[])
                ON CONFLICT (record_seq) DO UPDATE SET core_model_offset = excluded.core_model_offset,
                    skeleton = excluded.skeleton
                """,
                .of(seqs, rows.map(\.parts.coreModelOffset), rows.map { Data($0.parts.skeleton) })),
            PostgresSession.Statement(
                """
                INSERT INTO raw_core_model (record_seq, bytes) SELECT unnest($1::int8[]), unnest($2::bytea[])
                ON CONFLICT (record_seq) DO UPDATE SET bytes = excluded.bytes
                """, .of(seqs, rows.map { Data($0.parts.coreModel) })),
        ]
    }

    // New records' raw rooms (their record rows are in by now) with binary COPY: the bytes go
    // as they are, no array to build or unpack on the server.
    private static func copyNewRaw(
        _ tx: PostgresSession.Transaction, _ rows: [(seq: Int64, parts: RawRoomParts)]
    ) throws {
        func int8(_ value: Int64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        func int4(_ value: Int) -> [UInt8] { withUnsafeBytes(of: Int32(value).bigEndian) { Array($0) } }
        try tx.copyIn(
            "COPY raw_room (record_seq, core_model_offset, skeleton) FROM STDIN (FORMAT binary)", columns: 3,
            rows: rows.count
        ) { row, column in
            switch column {
            case 0: int8(rows[row].seq)
            case 1: int4(rows[row].parts.coreModelOffset)
            default: rows[row].parts.skeleton
            }
        }
        try tx.copyIn(
            "COPY raw_core_model (record_seq, bytes) FROM STDIN (FORMAT binary)", columns: 2, rows: rows.count
        ) { row, column in
            column == 0 ? int8(rows[row].seq) : rows[row].parts.coreModel
        }
    }

    /// Whether an export file with this content hash was already imported.
    package func hasImportedFile(contentHash: String) throws(RederiveError) -> Bool {
        try io("read") {
            try !reader.run("SELECT 1 FROM imported_file WHERE content_hash = $1", .of(contentHash)).rows.isEmpty
        }
    }

    /// The raw room of a record, byte-exact as received, or nil for an unknown id.
    package func rawRoom(id: String) throws(RederiveError) -> [UInt8]? {
        try io("read") {
            guard
                let row = try reader.run(
                    """
                    SELECT raw_room.core_model_offset, raw_room.skeleton, raw_core_model.bytes
                    FROM record JOIN raw_room ON raw_room.record_seq = record.seq
                    JOIN raw_core_model ON raw_core_model.record_seq = record.seq WHERE record.id = $1
                    """, .of(RecordIdentity.canonicalUUID(id) ?? id)
                ).rows.first
            else { return nil }
            let skeleton = try row.get("skeleton", as: [UInt8].self)
            let core = try row.get("bytes", as: [UInt8].self)
            let parts = RawRoomParts(
                skeleton: skeleton,
                coreModel: core,
                coreModelOffset: try row.get("core_model_offset"))
            guard let raw = parts.joined() else {
                throw RederiveError.io("\(path): record \(id): the stored raw room is damaged: \(parts.damage)")
            }
            return raw
        }
    }
}
