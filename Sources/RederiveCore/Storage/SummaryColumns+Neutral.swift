extension SummaryColumns {
    /// One stored column value in terms every engine has (SQLite's storage classes), so
    /// each engine builds and binds summary columns in its own client's types.
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
        values = neutral
    }

    /// The values, engine-neutral, in `names` order.
    package var neutral: [Value] { values }
}

extension SummaryColumns.Value {
    /// The value as an integer (a real is truncated, as SQLite converts it), nil for NULL or text.
    var integerValue: Int64? {
        switch self {
        case .integer(let int): int
        case .real(let double): Int64(exactly: double.rounded(.towardZero))
        case .null, .text: nil
        }
    }

    /// The value as text, nil for anything else.
    var textValue: String? {
        if case .text(let text) = self { text } else { nil }
    }
}
