/// One stored column value in terms every engine has (SQLite's storage classes): how a
/// summary column is read before it is typed (`StoredSummary(reading:)`), and the values of
/// the statements `copy-store` runs on both engines (`HistoryCopy`). Each engine builds and
/// binds it in its own client's types.
package enum StoredValue: Sendable, Equatable {
    /// SQL NULL.
    case null
    /// An integer column value.
    case integer(Int64)
    /// A floating-point column value.
    case real(Double)
    /// A text column value.
    case text(String)

    /// The value as an integer (a real is truncated, as SQLite converts it), nil for NULL or text.
    package var integerValue: Int64? {
        switch self {
        case .integer(let int): int
        case .real(let double): Int64(exactly: double.rounded(.towardZero))
        case .null, .text: nil
        }
    }

    /// The value as a real (an integer converted), nil for NULL or text.
    package var realValue: Double? {
        switch self {
        case .integer(let int): Double(int)
        case .real(let double): double
        case .null, .text: nil
        }
    }

    /// The value as text, nil for anything else.
    package var textValue: String? {
        if case .text(let text) = self { text } else { nil }
    }
}

extension StoredValue: CustomStringConvertible {
    /// The value as text (a marker's run id).
    package var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): value
        }
    }
}
