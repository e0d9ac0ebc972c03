import GRDB
import RederiveCore

extension SQLiteStore {
    // The WHERE clause after the keyset bounds: fresh summaries only unless `includeStale`,
    // and derived at or after `derivedSince` (UTC with milliseconds) when given. Records without a summary are
    // excluded by the inner join.
    private func exportFilter(includeStale: Bool, derivedSince: String?, deriver: SummaryDeriver) -> KeysetFilter {
        var filter = KeysetFilter()
        if !includeStale {
            filter.and(freshness: [.fresh], deriver: deriver)
        }
        if let derivedSince {
            // Stored times omit `.000` on whole seconds; compare in the always-milliseconds form.
            filter.and(
                "(CASE WHEN instr(summary.derived_at, '.') = 0"
                    + " THEN substr(summary.derived_at, 1, length(summary.derived_at) - 1) || '.000Z'"
                    + " ELSE summary.derived_at END) >= ?", [derivedSince])
        }
        return filter
    }

    /// The next export page by keyset: `seq > after AND seq <= upTo ORDER BY seq LIMIT limit`.
    /// Never OFFSET: each page costs the same whatever its position, and rows changing
    /// between pages are neither skipped nor exported twice.
    package func fetchExportPage(
        includeStale: Bool, derivedSince: String?, deriver: SummaryDeriver, after: Int64,
        upTo: Int64, limit: Int
    ) throws(RederiveError) -> [ExportRow] {
        let filter = exportFilter(includeStale: includeStale, derivedSince: derivedSince, deriver: deriver)
        do {
            return try pool.read { db in
                try filter.page(
                    db,
                    """
                    SELECT record.seq, record.id, \(Self.selectText("record.room_name")), record.captured_at,
                           summary.summary_version,
                           summary.fingerprint, summary.derived_at, summary.summary_json
                    FROM record JOIN summary ON summary.record_seq = record.seq
                    """, after: after, upTo: upTo, limit: limit
                ) { row in
                    ExportRow(
                        seq: row[0], id: row[1], roomName: Self.text(row[2]), capturedAt: row[3],
                        summaryVersion: row[4], fingerprint: row[5], derivedAt: row[6],
                        summaryJSON: row[7])
                }
            }
        } catch {
            throw .io("\(path): cannot read: \(error)")
        }
    }

    /// How many records exist up to `upTo` (to tell how many an export left out).
    package func countRecords(upTo: Int64) throws(RederiveError) -> Int {
        do {
            return try pool.read {
                try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM record WHERE seq <= ?", arguments: [upTo]) ?? 0
            }
        } catch {
            throw .io("\(path): cannot read: \(error)")
        }
    }
}
