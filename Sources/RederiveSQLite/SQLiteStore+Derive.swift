import Foundation
import GRDB
import RederiveCore

extension SQLiteStore {
    // The WHERE clause after the keyset bounds: the core's rule, rendered in this dialect.
    private func filter(
        _ selection: DeriveSelection, deriver: SummaryDeriver,
        allowDowngrade: Bool
    ) -> KeysetFilter {
        var arguments = SQLiteArguments()
        let sql = SelectionPredicate(selection, deriver: deriver, allowDowngrade: allowDowngrade).render(&arguments)
        return KeysetFilter(conditions: sql, arguments.arguments)
    }

    /// The highest record key now: a run never goes past it, so rows added meanwhile wait
    /// for the next run.
    package func maxSeq() throws(RederiveError) -> Int64 {
        do { return try pool.read { try Int64.fetchOne($0, sql: "SELECT MAX(seq) FROM record") ?? 0 } } catch {
            throw .io("\(path): cannot read: \(error)")
        }
    }

    /// How many records a selection holds between the bounds (for progress and ETA).
    package func countSelected(
        _ selection: DeriveSelection, deriver: SummaryDeriver, allowDowngrade: Bool = false, after: Int64,
        upTo: Int64
    ) throws(RederiveError) -> Int {
        let conditions = filter(selection, deriver: deriver, allowDowngrade: allowDowngrade)
        do {
            return try pool.read { db in
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM record LEFT JOIN summary ON summary.record_seq = record.seq
                        WHERE record.seq > ? AND record.seq <= ?\(conditions.sql)
                        """, arguments: [after, upTo] + conditions.arguments) ?? 0
            }
        } catch {
            throw .io("\(path): cannot read: \(error)")
        }
    }

    /// The next batch by keyset (`KeysetFilter.page`): `seq > after AND seq <= upTo ORDER BY seq
    /// LIMIT limit`. Never OFFSET: rows changing under the loop can neither be skipped nor visited twice.
    package func fetchRooms(
        _ selection: DeriveSelection, deriver: SummaryDeriver, allowDowngrade: Bool = false, after: Int64,
        upTo: Int64, limit: Int
    ) throws(RederiveError) -> [StoredRoom] {
        let conditions = filter(selection, deriver: deriver, allowDowngrade: allowDowngrade)
        do {
            return try pool.read { db in
                let select = StoredRoomColumn.select(selection)
                let preview = selection.readsPreviewColumns
                // The page's raw rooms go into a few shared buffers, padded for simdjson (no copy later).
                var skeletons = PaddedBytes.Page()
                // The stored summaries' JSON too (a derive compares it with what it derived).
                var summaries = PaddedBytes.Page()
                var summaryRows: [Int] = []
                var (sourceFile, fingerprint) = ("", "")
                var rooms = try conditions.rows(db, select, after: after, upTo: upTo, limit: limit) { row in
                    typealias C = StoredRoomColumn
                    row.withBytes(C.skeleton.rawValue) { skeletons.append($0) }
                    if !row.isNull(C.summaryJSON.rawValue) {
                        summaryRows.append(skeletons.count - 1)
                        row.withBytes(C.summaryJSON.rawValue) { summaries.append($0) }
                    }
                    return StoredRoom(
                        seq: row.int64(C.seq.rawValue), id: row.text(C.id.rawValue),
                        roomName: preview
                            ? PreviewText.truncated(String(decoding: row.bytes(C.roomName.rawValue), as: UTF8.self))
                            : "",
                        sourceFile: row.text(C.sourceFile.rawValue, sameAs: &sourceFile),
                        sourceLine: Int(row.int64(C.sourceLine.rawValue)),
                        skeleton: [], storedVersion: row.optionalInt64(C.summaryVersion.rawValue).map(Int.init),
                        storedFingerprint: row.optionalText(C.fingerprint.rawValue, sameAs: &fingerprint),
                        storedJSON: nil,
                        formatVersion: Int(row.int64(C.formatVersion.rawValue)),
                        storedMethod: row.optionalText(C.floorAreaMethod.rawValue),
                        storedRunID: row.optionalInt64(C.runID.rawValue), rawHash: row.text(C.rawHash.rawValue))
                }
                for (index, skeleton) in skeletons.spans().enumerated() { rooms[index].skeletonBytes = skeleton }
                for (index, json) in zip(summaryRows, summaries.spans()) { rooms[index].storedJSONBytes = json }
                return rooms
            }
        } catch {
            throw .io("\(path): cannot read: \(error)")
        }
    }

    /// Writes one derive batch and the run's checkpoint in one transaction. Only derived
    /// columns are written; raw data is never touched.
    package func writeDeriveBatch(
        _ writes: [DeriveWrite], runID: Int64, deriver: SummaryDeriver, checkpointSeq: Int64,
        progress: RunStatistics
    ) throws(RederiveError) -> Int {
        try writeBatch { db in
            let now = SQLiteStore.now()
            var ledger = try SQLiteLedgerBatch(self, db, runID: runID, now: now)
            // What the batch replaces goes to the history in one statement, before the
            // summaries change (one B-tree walk instead of one statement per record).
            let replacedSeqs: [Int64] = writes.compactMap {
                if case .summary(let seq, _, _, _, .differentSummary) = $0 { seq } else { nil }
            }
            try keepHistory(db, of: replacedSeqs, runID: runID, now: now)
            // Looked up once: the statement cache hashes the whole SQL text on every lookup.
            let upsert = try db.cachedStatement(sql: StoredSummary.upsertSQL)
            let update = try db.cachedStatement(sql: StoredSummary.updateSameVersionSQL)
            // Summaries already stored as derived (a --rewrite of unchanged records) get only the run
            // and the time, in one statement, while they are still this deriver's; when one is not,
            // each is restamped on its own, and the one not found is written as any other. Other
            // rewrites of a summary of the same version and fingerprint are updated in place first
            // (no index entry rewritten); the upsert writes any other. Once an update finds no such
            // row, the rest of the batch goes straight to the upsert, as before: a new version's
            // batch tries one update, not one a record.
            let unchanged: [Int64] = writes.compactMap {
                if case .summary(let seq, _, _, _, .sameSummary) = $0 { seq } else { nil }
            }
            let restamp = SQLiteSummaryRestamp(db, deriver: deriver, runID: runID, now: now)
            let allRestamped = try !unchanged.isEmpty && restamp.all(unchanged)
            var updateFound = true
            for write in writes {
                if case .summary(let seq, let id, _, _, .sameSummary) = write, try allRestamped || restamp(seq) {
                    ledger.succeeded(id: id)
                    continue
                }
                switch write {
                case .summary(let seq, let id, let summary, let json, let replaced):
                    let tryUpdate = updateFound && replaced != .unknown
                    if tryUpdate {
                        try update.executeSummaryWrite(
                            seq: seq, summary: summary, json: json, deriver: deriver, runID: runID, now: now)
                    }
                    if tryUpdate { updateFound = db.changesCount > 0 }
                    if !tryUpdate || !updateFound {
                        try writeSummary(
                            db, seq: seq, summary: summary, json: json, deriver: deriver, runID: runID, now: now,
                            replacing: replaced == .differentSummary ? .nothing : replaced, upsert: upsert)
                    }
                    ledger.succeeded(id: id)
                case .unchanged(let id):
                    ledger.succeeded(id: id)
                case .failure(let issue):
                    ledger.failed(issue)
                }
            }
            let newFailures = try ledger.finish()
            try saveProgress(db, runID: runID, statistics: progress, checkpointSeq: checkpointSeq)
            return newFailures
        }
    }
}

extension SQLiteStore {
    /// Ids of up to `limit` records a selection holds past key `after` (records added after
    /// a plan was made, for the log).
    package func selectedIDs(
        _ selection: DeriveSelection, deriver: SummaryDeriver, allowDowngrade: Bool, after: Int64,
        limit: Int
    ) throws(RederiveError) -> [String] {
        try fetchRooms(
            selection, deriver: deriver, allowDowngrade: allowDowngrade, after: after, upTo: Int64.max,
            limit: limit
        ).map(\.id)
    }
}
