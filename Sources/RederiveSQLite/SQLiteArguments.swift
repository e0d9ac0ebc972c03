import GRDB
import RederiveCore

/// The values of SQL the core renders (`SQLBinder`) in SQLite's dialect: one `?` per value,
/// in the order of the text.
struct SQLiteArguments: SQLBinder {
    /// The values bound, in order.
    private(set) var values: [StoredValue] = []

    var dialect: StoreDialect { .sqlite }

    mutating func bind(_ value: StoredValue) -> String {
        values.append(value)
        return "?"
    }

    /// Each text its own parameter (SQLite has no array values): `?,?,?`.
    mutating func bind(texts: [String]) -> String { texts.map { bind(.text($0)) }.joined(separator: ",") }

    /// The values as GRDB binds them.
    var arguments: StatementArguments { StatementArguments(values.map(\.databaseValue)) }
}
