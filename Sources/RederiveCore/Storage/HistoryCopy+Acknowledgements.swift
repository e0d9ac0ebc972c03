extension HistoryCopy {
    /// The source's acknowledgements (`failures --ack`; 1 limit, 2 offset).
    static let acknowledgementsSQL: Text = { p in
        """
        SELECT failure_key, failure_first_seen_at, acknowledged_at
        FROM failure_ack ORDER BY failure_key LIMIT \(p(1, .bigint)) OFFSET \(p(2, .bigint))
        """
    }

    /// Inserts one acknowledgement when the destination's ledger holds the very failure it
    /// acknowledges (same key, first seen at the same time), unless it is acknowledged there.
    static let insertAcknowledgementSQL: Text = { p in
        p.dialect.insertSkippingConflicts(
            """
            INTO failure_ack (failure_key, failure_first_seen_at, acknowledged_at)
            SELECT \(p(1, .text)), \(p(2, .text)), \(p(3, .text))
            WHERE EXISTS (SELECT 1 FROM failure
                          WHERE record_key = \(p(1, .text)) AND first_seen_at = \(p(2, .text)))
            """)
    }

    /// The source's faulted files (1 limit, 2 offset).
    static let faultedFilesSQL: Text = { p in
        """
        SELECT content_hash, path, bytes, code, message, run_id, faulted_at
        FROM faulted_file ORDER BY content_hash LIMIT \(p(1, .bigint)) OFFSET \(p(2, .bigint))
        """
    }

    /// Inserts one faulted file unless the destination has those bytes recorded.
    static let insertFaultedFileSQL: Text = { p in
        let types: [StoreDialect.CastType] = [.text, .text, .bigint, .text, .text, .bigint, .text]
        return p.dialect.insertSkippingConflicts(
            """
            INTO faulted_file (content_hash, path, bytes, code, message, run_id, faulted_at)
            VALUES (\(types.enumerated().map { p($0 + 1, $1) }.joined(separator: ", ")))
            """)
    }

    /// Copies the failure acknowledgements and the faulted files of `source` into
    /// `destination` (after `copyHistory`, so the failures acknowledged are there), runs
    /// mapped by `runs` (a faulted file of a run not copied is credited to `copyRun`): the
    /// destination's monitoring check ignores what the operator acknowledged, and its nightly
    /// import does not read a faulted file again. Returns the rows read.
    package static func copyAcknowledgements(
        from source: any HistoryCopying, to destination: any HistoryCopying, runs: [Int64: Int64], copyRun: Int64
    ) throws(RederiveError) -> (acknowledgements: Int, faultedFiles: Int) {
        let insertAcknowledgement = SharedSQL(destination.dialect, insertAcknowledgementSQL)
        let acknowledgements = try copyPages(acknowledgementsSQL, from: source, to: destination) {
            insertAcknowledgement.statement($0)
        }
        let insertFaultedFile = SharedSQL(destination.dialect, insertFaultedFileSQL)
        let faultedFiles = try copyPages(faultedFilesSQL, from: source, to: destination) { row in
            var values = row
            if case .integer(let id) = row[5] { values[5] = .integer(runs[id] ?? copyRun) }
            return insertFaultedFile.statement(values)
        }
        return (acknowledgements, faultedFiles)
    }

    /// The rows `destination` holds of what a copy brings: the runs copied from the store
    /// `sourceID`, summary history, failures, acknowledgements, faulted files (in that order),
    /// so a copy can say what it added rather than what it read.
    package static func rowCounts(in destination: any HistoryCopying, sourceID: String) throws(RederiveError) -> [Int] {
        let tables = ["summary_history", "failure", "failure_ack", "faulted_file"]
        let copiedRuns = SharedSQL(destination.dialect) { p in
            "SELECT COUNT(*) FROM run WHERE substr(resume_key, 1, length(\(p(1, .text)))) = \(p(1, .text))"
        }
        let statements: [Statement] =
            [copiedRuns.statement([.text("copied:\(sourceID):")])] + tables.map { ("SELECT COUNT(*) FROM \($0)", []) }
        return try destination.executeShared(statements).map { rows in
            if case .integer(let n) = rows.first?.first { Int(n) } else { 0 }
        }
    }
}
