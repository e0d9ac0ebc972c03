import GRDB
import RederiveCore

/// A derive batch's restamp: the run and the time written to summaries already stored as
/// derived (`SummaryReplacement.sameSummary`, a `--rewrite` of unchanged records), as PostgreSQL's
/// restamp does. The full write bound every column of each (its JSON copied by SQLite) to store
/// the same values again. The batch's keys go in one statement (`batchSQL`); only when it finds
/// fewer rows than keys are they restamped again one by one (`sql`), to learn which ones the
/// caller must write in full.
struct SQLiteSummaryRestamp {
    /// `?1` the time, `?2` the run, `?3` the record's key, `?4` and `?5` the deriver's version and
    /// fingerprint: only while the stored summary is still that deriver's (otherwise no row changes).
    static let sql = """
        UPDATE summary SET \(SummaryColumn.derivedAt.name) = ?1, \(SummaryColumn.runID.name) = ?2
        WHERE record_seq = ?3 AND \(SummaryColumn.summaryVersion.name) = ?4
            AND \(SummaryColumn.fingerprint.name) = ?5
        """

    /// `sql` for every key of the JSON array `?3`. One statement a batch: a statement a key cost
    /// each its own execution (a record buffer allocated and freed, the statement halted and
    /// reset). The version and fingerprint are a guard kept out of the plan (`+`): with them the
    /// planner found each key through `summary_by_version`, then the table.
    static let batchSQL = """
        UPDATE summary SET \(SummaryColumn.derivedAt.name) = ?1, \(SummaryColumn.runID.name) = ?2
        WHERE record_seq IN (SELECT value FROM json_each(?3)) AND +\(SummaryColumn.summaryVersion.name) = ?4
            AND +\(SummaryColumn.fingerprint.name) = ?5
        """

    private let db: Database
    private let deriver: SummaryDeriver
    private let runID: Int64
    private let now: String

    /// The restamp of run `runID` at `now` for `deriver`'s summaries, in `db`'s transaction.
    init(_ db: Database, deriver: SummaryDeriver, runID: Int64, now: String) {
        (self.db, self.deriver, self.runID, self.now) = (db, deriver, runID, now)
    }

    /// Restamps the summaries of records `seqs` (each once); whether it found every one.
    func all(_ seqs: [Int64]) throws -> Bool {
        let keys = "[" + seqs.map(String.init).joined(separator: ",") + "]"
        try db.cachedStatement(sql: Self.batchSQL).execute(bound: values(.text(keys)))
        return db.changesCount == seqs.count
    }

    /// Restamps record `seq`'s summary; false when it is not the deriver's (nothing written).
    func callAsFunction(_ seq: Int64) throws -> Bool {
        try db.cachedStatement(sql: Self.sql).execute(bound: values(.integer(seq)))
        return db.changesCount > 0
    }

    // The values of `?1` to `?5`, with `keys` as `?3`.
    private func values(_ keys: StoredValue) -> [StoredValue] {
        [.text(now), .integer(runID), keys, .integer(Int64(deriver.version)), .text(deriver.fingerprint)]
    }
}
