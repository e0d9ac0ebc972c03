extension HistoryCopy {
    /// The source's acknowledgements (`failures --ack`; `$1` limit, `$2` offset).
    static let acknowledgementsSQL = """
        SELECT failure_key, failure_first_seen_at, acknowledged_at
        FROM failure_ack ORDER BY failure_key LIMIT CAST($1 AS BIGINT) OFFSET CAST($2 AS BIGINT)
        """

    /// Inserts one acknowledgement when the destination's ledger holds the very failure it
    /// acknowledges (same key, first seen at the same time), unless it is acknowledged there.
    static let insertAcknowledgementSQL = """
        INSERT INTO failure_ack (failure_key, failure_first_seen_at, acknowledged_at)
        SELECT CAST($1 AS TEXT), CAST($2 AS TEXT), CAST($3 AS TEXT)
        WHERE EXISTS (SELECT 1 FROM failure
                      WHERE record_key = CAST($1 AS TEXT) AND first_seen_at = CAST($2 AS TEXT))
        ON CONFLICT DO NOTHING
        """

    /// The source's faulted files (`$1` limit, `$2` offset).
    static let faultedFilesSQL = """
        SELECT content_hash, path, bytes, code, message, run_id, faulted_at
        FROM faulted_file ORDER BY content_hash LIMIT CAST($1 AS BIGINT) OFFSET CAST($2 AS BIGINT)
        """

    /// Inserts one faulted file unless the destination has those bytes recorded.
    static let insertFaultedFileSQL = """
        INSERT INTO faulted_file (content_hash, path, bytes, code, message, run_id, faulted_at)
        VALUES (CAST($1 AS TEXT), CAST($2 AS TEXT), CAST($3 AS BIGINT), CAST($4 AS TEXT), CAST($5 AS TEXT),
                CAST($6 AS BIGINT), CAST($7 AS TEXT))
        ON CONFLICT DO NOTHING
        """

    /// Copies the failure acknowledgements and the faulted files of `source` into
    /// `destination` (after `copyHistory`, so the failures acknowledged are there), runs
    /// mapped by `runs` (a faulted file of a run not copied is credited to `copyRun`): the
    /// destination's monitoring check ignores what the operator acknowledged, and its nightly
    /// import does not read a faulted file again. Returns the rows read.
    package static func copyAcknowledgements(
        from source: any HistoryCopying, to destination: any HistoryCopying, runs: [Int64: Int64], copyRun: Int64
    ) throws(RederiveError) -> (acknowledgements: Int, faultedFiles: Int) {
        var counts = (acknowledgements: 0, faultedFiles: 0)
        for (select, insert) in [
            (acknowledgementsSQL, insertAcknowledgementSQL), (faultedFilesSQL, insertFaultedFileSQL),
        ] {
            var offset = 0
            while true {
                let page = try source.executeShared([(select, [.integer(Int64(pageSize)), .integer(Int64(offset))])])[0]
                if page.isEmpty { break }
                offset += page.count
                let statements: [Statement] = page.map { row in
                    guard select == faultedFilesSQL else { return (insert, row) }
                    var values = row
                    if case .integer(let id) = row[5] { values[5] = .integer(runs[id] ?? copyRun) }
                    return (insert, values)
                }
                _ = try destination.executeShared(statements)
                if select == faultedFilesSQL {
                    counts.faultedFiles += page.count
                } else {
                    counts.acknowledgements += page.count
                }
            }
        }
        return counts
    }

    /// The rows `destination` holds of what a copy brings: the runs copied from the store
    /// `sourceID`, summary history, failures, acknowledgements, faulted files (in that order),
    /// so a copy can say what it added rather than what it read.
    package static func rowCounts(in destination: any HistoryCopying, sourceID: String) throws(RederiveError) -> [Int] {
        let tables = ["summary_history", "failure", "failure_ack", "faulted_file"]
        let statements: [Statement] =
            [
                (
                    "SELECT COUNT(*) FROM run WHERE substr(resume_key, 1, length(CAST($1 AS TEXT))) = CAST($1 AS TEXT)",
                    [.text("copied:\(sourceID):")]
                )
            ] + tables.map { ("SELECT COUNT(*) FROM \($0)", []) }
        return try destination.executeShared(statements).map { rows in
            if case .integer(let n) = rows.first?.first { Int(n) } else { 0 }
        }
    }
}
