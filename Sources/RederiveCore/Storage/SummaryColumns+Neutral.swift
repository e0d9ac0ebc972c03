import GRDB

extension SummaryColumns {
    /// One stored column value in terms every engine has (SQLite's storage classes), so
    /// another engine can build and bind summary columns without GRDB's `DatabaseValue`.
    package enum Value: Sendable, Equatable {
        /// SQL NULL.
        case null
        /// An integer column value.
        case integer(Int64)
        /// A floating-point column value.
        case real(Double)
        /// A text column value.
        case text(String)
    }

    /// The columns from engine-neutral values, in `names` order.
    package init(neutral: [Value]) {
        precondition(neutral.count == Self.names.count, "one value per summary column")
        values = neutral.map(\.databaseValue)
    }

    /// The values, engine-neutral, in `names` order (a summary holds no blobs; one would be
    /// read as UTF-8 text).
    package var neutral: [Value] { values.map(Value.init) }
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
