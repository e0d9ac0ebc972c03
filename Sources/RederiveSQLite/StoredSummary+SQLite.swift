import GRDB
import RederiveCore

extension StoredSummary {
    /// The summary of `row`, its columns selected as `prefix` + name (`h_summary_version`, …).
    init(row: Row, prefix: String) throws {
        try self.init { StoredValue(row[prefix + $0.name] as DatabaseValue) }
    }

    /// Appends every column's value as SQLite binds it, in the table's order (no boxing:
    /// each through its typed key path).
    func appendDatabaseValues(to values: inout [DatabaseValue]) {
        for field in SummaryColumn.fields {
            switch field {
            case .integer(let path): values.append(self[keyPath: path].databaseValue)
            case .optionalInteger(let path): values.append(self[keyPath: path]?.databaseValue ?? .null)
            case .real(let path): values.append(self[keyPath: path].databaseValue)
            case .text(let path): values.append(self[keyPath: path].databaseValue)
            }
        }
    }

    /// One summary row's upsert (`record_seq` then every column, `?` each); built once.
    static let upsertSQL = """
        INSERT INTO summary (record_seq, \(SummaryColumn.list()))
        VALUES (?, \(SummaryColumn.allCases.map { _ in "?" }.joined(separator: ", ")))
        ON CONFLICT(record_seq) DO UPDATE SET \(SummaryColumn.upsertAssignments)
        """

    /// Upserts this summary as the one of record `seq`, in the caller's transaction.
    func upsert(_ db: Database, seq: Int64) throws {
        var values: [DatabaseValue] = [seq.databaseValue]
        values.reserveCapacity(1 + SummaryColumn.allCases.count)
        appendDatabaseValues(to: &values)
        try db.cachedStatement(sql: Self.upsertSQL).execute(arguments: StatementArguments(values))
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
