import GRDB
import RederiveCore

extension SummaryColumns {
    /// The columns of `row`, selected as `prefix` + name (`h_summary_version`, …).
    init(row: Row, prefix: String) {
        self.init(neutral: Self.names.map { SummaryColumns.Value(row[prefix + $0] as DatabaseValue) })
    }

    /// The values as SQLite binds them, in `names` order.
    var databaseValues: [DatabaseValue] { values.map(\.databaseValue) }
}

extension SummaryColumns.Value {
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
