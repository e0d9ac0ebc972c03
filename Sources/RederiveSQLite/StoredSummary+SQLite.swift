import GRDB
import RederiveCore

extension StoredSummary {
    /// The summary of `row`, its columns selected as `prefix` + name (`h_summary_version`, …).
    init(row: Row, prefix: String) throws {
        try self.init { StoredValue(row[prefix + $0.name] as DatabaseValue) }
    }

    /// One summary row's upsert (`record_seq` then every column, `?` each); built once.
    static let upsertSQL = """
        INSERT INTO summary (record_seq, \(SummaryColumn.list()))
        VALUES (?, \(SummaryColumn.allCases.map { _ in "?" }.joined(separator: ", ")))
        ON CONFLICT(record_seq) DO UPDATE SET \(SummaryColumn.upsertAssignments(.sqlite))
        """

    /// The same write as an `UPDATE` of a row already stored under the same version and
    /// fingerprint (`?1` the record's key, `?2`… every column in order: `upsertSQL`'s bindings).
    /// It leaves `summary_version` and `fingerprint` out of its `SET`, so SQLite keeps their
    /// `summary_by_version` entry instead of deleting and inserting it, and it neither tries an
    /// insert first nor checks the record's foreign key. It changes no row when the stored
    /// summary has another version or fingerprint, or none: the upsert writes it then.
    static let updateSameVersionSQL = """
        UPDATE summary SET \(
            SummaryColumn.allCases.filter { $0 != .summaryVersion && $0 != .fingerprint }
                .map { "\($0.name) = ?\($0.index + 2)" }.joined(separator: ", "))
        WHERE record_seq = ?1 AND summary_version = ?\(SummaryColumn.summaryVersion.index + 2)
            AND fingerprint = ?\(SummaryColumn.fingerprint.index + 2)
        """

    /// Upserts this summary as the one of record `seq`, in the caller's transaction; `upsert`:
    /// the statement of `upsertSQL`, when the caller looked it up once for a batch (the statement
    /// cache hashes the whole SQL text on every lookup).
    func upsert(_ db: Database, seq: Int64, statement upsert: Statement? = nil) throws {
        var values: [StoredValue] = [.integer(seq)]
        values.reserveCapacity(1 + SummaryColumn.allCases.count)
        for column in SummaryColumn.allCases { values.append(self[column]) }
        try (upsert ?? db.cachedStatement(sql: Self.upsertSQL)).execute(bound: values)
    }
}

extension StoredValue {
    /// The value as SQLite binds it.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let int): int.databaseValue
        case .real(let double): double.databaseValue
        case .text(let text): text.databaseValue
        }
    }

    /// A SQLite value, engine-neutral (a blob is read as UTF-8 text).
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let int): self = .integer(int)
        case .double(let double): self = .real(double)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .text(String(decoding: data, as: UTF8.self))
        }
    }
}
