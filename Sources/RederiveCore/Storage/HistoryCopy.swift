/// What `rederive copy-store` carries besides the records: the run history, the summary
/// history (so `rederive revert --run N` of a run made before the move works on the
/// destination) and the failure ledger, records never stored included.
///
/// Statements are written once for both engines (`$n` placeholders, every value cast to
/// `BIGINT`, `DOUBLE PRECISION` or `TEXT`) and run through `RecordStore.executeShared` with
/// engine-neutral values. Each is idempotent, so a killed copy finished by a rerun gives the
/// same store: a copied run is marked by its resume key (`copied:SOURCE-ID:RUN-ID`, which no
/// command ever continues) and keeps its id when the destination has it free (a fresh
/// destination keeps every id); history rows and failures already there are left alone.
package enum HistoryCopy {
    /// One statement with its engine-neutral values.
    package typealias Statement = (sql: String, values: [StoredValue])

    /// Rows per page read from the source.
    static let pageSize = 500

    /// The source's run history, page by page (`$1` limit, `$2` offset).
    static let runsSQL = """
        SELECT id, command, pipeline, arguments, status, exit_status, started_at, finished_at, summary_version,
               fingerprint, records_read, records_done, records_unchanged, records_skipped, file_faults, bytes_read,
               records_newer, CASE WHEN allow_downgrade THEN 1 ELSE 0 END AS allow_downgrade, duration_s
        FROM run ORDER BY id LIMIT CAST($1 AS BIGINT) OFFSET CAST($2 AS BIGINT)
        """

    /// Inserts one source run unless an earlier copy did (`$1` the source id, `$2` the
    /// marker, `$3`… the other columns of `runsSQL` in order), with the same id when it is free.
    static let insertRunSQL = {
        let newID = "(SELECT COALESCE(max(id), 0) + 1 FROM run)"
        return """
            INSERT INTO run (id, resume_key, command, pipeline, arguments, status, exit_status, started_at,
                             finished_at, summary_version, fingerprint, records_read, records_done,
                             records_unchanged, records_skipped, file_faults, bytes_read, records_newer,
                             allow_downgrade, duration_s)
            SELECT CASE WHEN EXISTS (SELECT 1 FROM run WHERE id = CAST($1 AS BIGINT)) THEN \(newID)
                        ELSE CAST($1 AS BIGINT) END,
                   CAST($2 AS TEXT), CAST($3 AS TEXT), CAST($4 AS TEXT), CAST($5 AS TEXT), CAST($6 AS TEXT),
                   CAST($7 AS BIGINT), CAST($8 AS TEXT), CAST($9 AS TEXT), CAST($10 AS BIGINT), CAST($11 AS TEXT),
                   CAST($12 AS BIGINT), CAST($13 AS BIGINT), CAST($14 AS BIGINT), CAST($15 AS BIGINT),
                   CAST($16 AS BIGINT), CAST($17 AS BIGINT), CAST($18 AS BIGINT), CAST($19 AS BIGINT) <> 0,
                   CAST($20 AS DOUBLE PRECISION)
            WHERE NOT EXISTS (SELECT 1 FROM run WHERE resume_key = CAST($2 AS TEXT))
            """
    }()

    /// The copied runs' marker prefix and their ids (`$1`: the marker prefix).
    static let copiedRunsSQL = """
        SELECT resume_key, id FROM run WHERE substr(resume_key, 1, length(CAST($1 AS TEXT))) = CAST($1 AS TEXT)
        """

    /// The source's summary history with each record's id (`$1` limit, `$2` offset).
    static let historySQL = """
        SELECT h.replaced_by_run, record.id AS record_id, h.replaced_at, \(SummaryColumn.list(prefix: "h."))
        FROM summary_history h JOIN record ON record.seq = h.record_seq
        ORDER BY h.replaced_by_run, h.record_seq LIMIT CAST($1 AS BIGINT) OFFSET CAST($2 AS BIGINT)
        """

    /// The SQL type each summary column is cast to.
    private static let summaryTypes = SummaryColumn.allCases.map(\.kind.sqlType)

    /// Inserts one history row for the destination's record with that id, unless there is one.
    static let insertHistorySQL = """
        INSERT INTO summary_history (replaced_by_run, record_seq, replaced_at, \(SummaryColumn.list()))
        SELECT CAST($1 AS BIGINT), record.seq, CAST($3 AS TEXT), \(
            summaryTypes.enumerated().map { "CAST($\($0 + 4) AS \($1))" }.joined(separator: ", "))
        FROM record WHERE record.id = CAST($2 AS TEXT)
        ON CONFLICT DO NOTHING
        """

    /// The columns of a `historySQL` row before its summary: run, record id, time.
    private static let historyKeys = 3

    /// The summary of a `historySQL` row (its columns after `historyKeys`, in table order).
    private static func historySummary(_ row: [StoredValue]) throws(RederiveError) -> StoredSummary {
        do {
            return try StoredSummary { row[historyKeys + $0.index] }
        } catch {
            throw .io("cannot copy the history: \(error)")
        }
    }

    /// The source's failure ledger (`$1` limit, `$2` offset).
    static let failuresSQL = """
        SELECT record_key, record_id, file, line, stage, code, message, run_id, first_seen_at, last_seen_at
        FROM failure ORDER BY record_key LIMIT CAST($1 AS BIGINT) OFFSET CAST($2 AS BIGINT)
        """

    /// Inserts one failure unless the destination's ledger has that key.
    static let insertFailureSQL = """
        INSERT INTO failure (record_key, record_id, file, line, stage, code, message, run_id, first_seen_at,
                             last_seen_at)
        VALUES (CAST($1 AS TEXT), CAST($2 AS TEXT), CAST($3 AS TEXT), CAST($4 AS BIGINT), CAST($5 AS TEXT),
                CAST($6 AS TEXT), CAST($7 AS TEXT), CAST($8 AS BIGINT), CAST($9 AS TEXT), CAST($10 AS TEXT))
        ON CONFLICT DO NOTHING
        """

    /// Who derived each current summary on the source, with the record's id and what it holds.
    static let provenanceSQL = """
        SELECT record.id AS record_id, s.summary_version, s.fingerprint, s.summary_json, s.derived_at, s.run_id
        FROM summary s JOIN record ON record.seq = s.record_seq
        ORDER BY s.record_seq LIMIT CAST($1 AS BIGINT) OFFSET CAST($2 AS BIGINT)
        """

    /// A copied record whose new summary is the one it held on the source (fresh for the
    /// source's version and fingerprint, the same JSON) keeps who derived it and when (what
    /// `revert --run N` checks before restoring).
    static let provenanceUpdateSQL = """
        UPDATE summary SET derived_at = CAST($5 AS TEXT), run_id = CAST($6 AS BIGINT)
        WHERE record_seq = (SELECT seq FROM record WHERE id = CAST($1 AS TEXT))
          AND \(SummaryFreshness.fresh.sqlCondition { $0 == .version ? "CAST($2 AS BIGINT)" : "CAST($3 AS TEXT)" })
          AND summary.summary_json = CAST($4 AS TEXT)
        """

    /// Copies the runs of `source` (store id `sourceID`) not yet in `destination`; returns
    /// the id each source run has there (from this copy or an earlier one).
    package static func copyRuns(
        from source: any HistoryCopying, to destination: any HistoryCopying, sourceID: String
    ) throws(RederiveError) -> [Int64: Int64] {
        let marker = "copied:\(sourceID):"
        var offset = 0
        while true {
            let page = try source.executeShared([(runsSQL, [.integer(Int64(pageSize)), .integer(Int64(offset))])])[0]
            if page.isEmpty { break }
            offset += page.count
            let inserts: [Statement] = page.map { row in
                var values = row
                if case .text(RunStatus.running.rawValue) = values[4] { values[4] = .text(RunStatus.crashed.rawValue) }
                // A row an older version recorded may name a password: the copy never keeps it.
                if case .text(let arguments) = values[3] { values[3] = .text(ArgumentRedaction.scrubbed(arguments)) }
                let id = row[0]
                return (insertRunSQL, [id, .text(marker + id.description)] + values.dropFirst())
            }
            _ = try destination.executeShared(inserts + destination.runIDFixups.map { ($0, []) })
        }
        var map: [Int64: Int64] = [:]
        for row in try destination.executeShared([(copiedRunsSQL, [.text(marker)])])[0] {
            guard case .text(let key) = row[0], case .integer(let id) = row[1],
                let sourceRun = Int64(key.dropFirst(marker.count))
            else { continue }
            map[sourceRun] = id
        }
        return map
    }

    /// Copies the summary history, the failure ledger and the current summaries' provenance
    /// of `source` into `destination`, runs mapped by `runs` (failures of a run not copied
    /// are credited to `copyRun`). Returns the rows read: history and failures.
    package static func copyHistory(
        from source: any HistoryCopying, to destination: any HistoryCopying, runs: [Int64: Int64], copyRun: Int64
    ) throws(RederiveError) -> (history: Int, failures: Int) {
        func mapped(_ value: StoredValue) -> StoredValue {
            guard case .integer(let id) = value else { return value }
            return runs[id].map { .integer($0) } ?? .null
        }
        var counts = (history: 0, failures: 0)
        for (select, insert) in [(historySQL, insertHistorySQL), (failuresSQL, insertFailureSQL)] {
            var offset = 0
            while true {
                let page = try source.executeShared([(select, [.integer(Int64(pageSize)), .integer(Int64(offset))])])[0]
                if page.isEmpty { break }
                offset += page.count
                var statements: [Statement] = []
                for row in page {
                    var values = row
                    if select == historySQL {
                        values[0] = mapped(row[0])
                        if values[0] == .null { continue }  // a run the source no longer has
                        // The replaced summary, typed, with its run mapped too.
                        var summary = try historySummary(row)
                        summary.runID = mapped(summary[.runID]).integerValue
                        values = Array(values.prefix(historyKeys)) + summary.storedValues
                    } else {
                        values[7] = mapped(row[7])
                        if values[7] == .null { values[7] = .integer(copyRun) }
                    }
                    statements.append((insert, values))
                }
                _ = try destination.executeShared(statements)
                if select == historySQL { counts.history += page.count } else { counts.failures += page.count }
            }
        }
        var offset = 0
        while true {
            let page = try source.executeShared([(provenanceSQL, [.integer(Int64(pageSize)), .integer(Int64(offset))])]
            )[0]
            if page.isEmpty { break }
            offset += page.count
            _ = try destination.executeShared(
                page.map { row in
                    var values = row
                    values[5] = mapped(row[5])
                    return (provenanceUpdateSQL, values)
                })
        }
        return counts
    }
}
