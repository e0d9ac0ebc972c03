/// What `rederive copy-store` carries besides the records: the run history, the summary
/// history (so `rederive revert --run N` of a run made before the move works on the
/// destination) and the failure ledger, records never stored included.
///
/// Statements are written once for every engine, each value referred to by number and cast
/// (`SharedSQL`), rendered in the dialect of the store that runs them (placeholders, type
/// names, the conflict-skipping insert) and run through `RecordStore.executeShared` with
/// engine-neutral values. Each is idempotent, so a killed copy finished by a rerun gives the
/// same store: a copied run is marked by its resume key (`copied:SOURCE-ID:RUN-ID`, which no
/// command ever continues) and keeps its id when the destination has it free (a fresh
/// destination keeps every id); history rows and failures already there are left alone.
package enum HistoryCopy {
    /// One statement with its engine-neutral values.
    package typealias Statement = (sql: String, values: [StoredValue])

    /// Rows per page read from the source.
    static let pageSize = 500

    /// A statement's text, each value written through its references (`p(1, .bigint)`).
    typealias Text = @Sendable (inout SharedSQL.References) -> String

    /// The source's run history, page by page (1 limit, 2 offset).
    static let runsSQL: Text = { p in
        """
        SELECT id, command, pipeline, arguments, status, exit_status, started_at, finished_at, summary_version,
               fingerprint, records_read, records_done, records_unchanged, records_skipped, file_faults, bytes_read,
               records_newer, CASE WHEN allow_downgrade THEN 1 ELSE 0 END AS allow_downgrade, duration_s
        FROM run ORDER BY id LIMIT \(p(1, .bigint)) OFFSET \(p(2, .bigint))
        """
    }

    /// Inserts one source run unless an earlier copy did (1 the source id, 2 the marker, 3…
    /// the other columns of `runsSQL` in order), with the same id when it is free.
    static let insertRunSQL: Text = { p in
        let newID = "(SELECT COALESCE(max(id), 0) + 1 FROM run)"
        let types: [StoreDialect.CastType] = [
            .text, .text, .text, .text, .bigint, .text, .text, .bigint, .text, .bigint, .bigint, .bigint, .bigint,
            .bigint, .bigint, .bigint,
        ]
        return """
            INSERT INTO run (id, resume_key, command, pipeline, arguments, status, exit_status, started_at,
                             finished_at, summary_version, fingerprint, records_read, records_done,
                             records_unchanged, records_skipped, file_faults, bytes_read, records_newer,
                             allow_downgrade, duration_s)
            SELECT CASE WHEN EXISTS (SELECT 1 FROM run WHERE id = \(p(1, .bigint))) THEN \(newID)
                        ELSE \(p(1, .bigint)) END,
                   \(p(2, .text)), \(types.enumerated().map { p($0 + 3, $1) }.joined(separator: ", ")),
                   \(p(19, .bigint)) <> 0, \(p(20, .double))
            WHERE NOT EXISTS (SELECT 1 FROM run WHERE resume_key = \(p(2, .text)))
            """
    }

    /// The copied runs' marker prefix and their ids (1: the marker prefix).
    static let copiedRunsSQL: Text = { p in
        "SELECT resume_key, id FROM run WHERE substr(resume_key, 1, length(\(p(1, .text)))) = \(p(1, .text))"
    }

    /// The source's summary history with each record's id (1 limit, 2 offset).
    static let historySQL: Text = { p in
        """
        SELECT h.replaced_by_run, record.id AS record_id, h.replaced_at, \(SummaryColumn.list(prefix: "h."))
        FROM summary_history h JOIN record ON record.seq = h.record_seq
        ORDER BY h.replaced_by_run, h.record_seq LIMIT \(p(1, .bigint)) OFFSET \(p(2, .bigint))
        """
    }

    /// The type each summary column is cast to.
    private static let summaryTypes: [StoreDialect.CastType] = SummaryColumn.allCases.map {
        switch $0.kind {
        case .integer: .bigint
        case .real: .double
        case .text: .text
        }
    }

    /// Inserts one history row for the destination's record with that id, unless there is one.
    static let insertHistorySQL: Text = { p in
        p.dialect.insertSkippingConflicts(
            """
            INTO summary_history (replaced_by_run, record_seq, replaced_at, \(SummaryColumn.list()))
            SELECT \(p(1, .bigint)), record.seq, \(p(3, .text)), \(
                summaryTypes.enumerated().map { p($0 + 4, $1) }.joined(separator: ", "))
            FROM record WHERE record.id = \(p(2, .text))
            """)
    }

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

    /// The source's failure ledger (1 limit, 2 offset).
    static let failuresSQL: Text = { p in
        """
        SELECT record_key, record_id, file, line, stage, code, message, run_id, first_seen_at, last_seen_at
        FROM failure ORDER BY record_key LIMIT \(p(1, .bigint)) OFFSET \(p(2, .bigint))
        """
    }

    /// Inserts one failure unless the destination's ledger has that key.
    static let insertFailureSQL: Text = { p in
        let types: [StoreDialect.CastType] = [.text, .text, .text, .bigint, .text, .text, .text, .bigint, .text, .text]
        return p.dialect.insertSkippingConflicts(
            """
            INTO failure (record_key, record_id, file, line, stage, code, message, run_id, first_seen_at,
                          last_seen_at)
            VALUES (\(types.enumerated().map { p($0 + 1, $1) }.joined(separator: ", ")))
            """)
    }

    /// Who derived each current summary on the source, with the record's id and what it holds.
    static let provenanceSQL: Text = { p in
        """
        SELECT record.id AS record_id, s.summary_version, s.fingerprint, s.summary_json, s.derived_at, s.run_id
        FROM summary s JOIN record ON record.seq = s.record_seq
        ORDER BY s.record_seq LIMIT \(p(1, .bigint)) OFFSET \(p(2, .bigint))
        """
    }

    /// A copied record whose new summary is the one it held on the source (fresh for the
    /// source's version and fingerprint, the same JSON) keeps who derived it and when (what
    /// `revert --run N` checks before restoring).
    static let provenanceUpdateSQL: Text = { p in
        """
        UPDATE summary SET derived_at = \(p(5, .text)), run_id = \(p(6, .bigint))
        WHERE record_seq = (SELECT seq FROM record WHERE id = \(p(1, .text)))
          AND \(SummaryFreshness.fresh.sqlCondition { $0 == .version ? p(2, .bigint) : p(3, .text) })
          AND summary.summary_json = \(p(4, .text))
        """
    }

    /// Reads `select` (1 limit, 2 offset) from `source` page by page, and runs on `destination`
    /// the statements `statement` makes of each page's rows (nil: the row is left out), then
    /// `trailing`, a page per transaction. Returns the rows read.
    @discardableResult
    static func copyPages(
        _ select: Text, from source: any HistoryCopying, to destination: any HistoryCopying,
        trailing: [Statement] = [], _ statement: ([StoredValue]) throws(RederiveError) -> Statement?
    ) throws(RederiveError) -> Int {
        let read = SharedSQL(source.dialect, select)
        var offset = 0
        while true {
            let page = try source.executeShared([read.statement([.integer(Int64(pageSize)), .integer(Int64(offset))])])[
                0]
            if page.isEmpty { return offset }
            offset += page.count
            var statements: [Statement] = []
            for row in page {
                if let made = try statement(row) { statements.append(made) }
            }
            _ = try destination.executeShared(statements + trailing)
        }
    }

    /// Copies the runs of `source` (store id `sourceID`) not yet in `destination`; returns
    /// the id each source run has there (from this copy or an earlier one).
    package static func copyRuns(
        from source: any HistoryCopying, to destination: any HistoryCopying, sourceID: String
    ) throws(RederiveError) -> [Int64: Int64] {
        let marker = "copied:\(sourceID):"
        let insertRun = SharedSQL(destination.dialect, insertRunSQL)
        try copyPages(runsSQL, from: source, to: destination, trailing: destination.runIDFixups.map { ($0, []) }) {
            row in
            var values = row
            if case .text(RunStatus.running.rawValue) = values[4] { values[4] = .text(RunStatus.crashed.rawValue) }
            // A row an older version recorded may name a password: the copy never keeps it.
            if case .text(let arguments) = values[3] { values[3] = .text(ArgumentRedaction.scrubbed(arguments)) }
            let id = row[0]
            return insertRun.statement([id, .text(marker + id.description)] + values.dropFirst())
        }
        var map: [Int64: Int64] = [:]
        let copied = SharedSQL(destination.dialect, copiedRunsSQL).statement([.text(marker)])
        for row in try destination.executeShared([copied])[0] {
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
        let insertHistory = SharedSQL(destination.dialect, insertHistorySQL)
        let history = try copyPages(historySQL, from: source, to: destination) { row throws(RederiveError) in
            var values = row
            values[0] = mapped(row[0])
            if values[0] == .null { return nil }  // a run the source no longer has
            // The replaced summary, typed, with its run mapped too.
            var summary = try historySummary(row)
            summary.runID = mapped(summary[.runID]).integerValue
            return insertHistory.statement(Array(values.prefix(historyKeys)) + summary.storedValues)
        }
        let insertFailure = SharedSQL(destination.dialect, insertFailureSQL)
        let failures = try copyPages(failuresSQL, from: source, to: destination) { row in
            var values = row
            values[7] = mapped(row[7])
            if values[7] == .null { values[7] = .integer(copyRun) }
            return insertFailure.statement(values)
        }
        let provenanceUpdate = SharedSQL(destination.dialect, provenanceUpdateSQL)
        try copyPages(provenanceSQL, from: source, to: destination) { row in
            var values = row
            values[5] = mapped(row[5])
            return provenanceUpdate.statement(values)
        }
        return (history, failures)
    }
}
