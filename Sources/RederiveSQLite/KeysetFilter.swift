import GRDB
import GRDBSQLite
import RederiveCore

/// The conditions a keyset query adds after its bounds (`WHERE record.seq > ? AND
/// record.seq <= ?`): each one ` AND`-joined onto `sql`, its arguments appended in order.
struct KeysetFilter {
    /// The conditions, each starting with ` AND ` (empty: no condition).
    private(set) var sql = ""
    /// The conditions' arguments, in the order of their placeholders.
    private(set) var arguments: StatementArguments = []

    /// No condition yet.
    init() {}

    /// Conditions already rendered (each starting with ` AND `) with their arguments.
    init(conditions: String, _ arguments: StatementArguments) {
        (sql, self.arguments) = (conditions, arguments)
    }

    /// Adds `condition` (an SQL expression) with the arguments of its placeholders.
    mutating func and(_ condition: String, _ arguments: StatementArguments = []) {
        sql += " AND " + condition
        self.arguments += arguments
    }

    /// Adds the condition that holds for exactly the freshness cases `cases` for `deriver`
    /// (`SummaryFreshness.sqlCondition`), ORed with `orElse` (and its arguments) when given.
    mutating func and(
        freshness cases: Set<SummaryFreshness>, deriver: SummaryDeriver, orElse: String = "",
        _ orArguments: StatementArguments = []
    ) {
        let (condition, arguments) = SQLiteStore.freshnessSQL(cases, deriver: deriver)
        and(orElse.isEmpty ? condition : "(" + condition + orElse + ")", arguments + orArguments)
    }

    /// One keyset page: `select` (its SELECT and FROM, `record` among the tables), then
    /// `record.seq > after AND record.seq <= upTo` with these conditions, `ORDER BY record.seq
    /// LIMIT limit`; each row made into a value by `value`. Never OFFSET: each page costs the
    /// same whatever its position, and rows changing between pages are neither skipped nor
    /// read twice.
    func page<T>(
        _ db: Database, _ select: String, after: Int64, upTo: Int64, limit: Int, _ value: (Row) throws -> T
    ) throws -> [T] {
        let rows = try Row.fetchCursor(
            db,
            sql: select + "\nWHERE record.seq > ? AND record.seq <= ?\(sql)\nORDER BY record.seq LIMIT ?",
            arguments: [after, upTo] + arguments + [limit])
        var out: [T] = []
        out.reserveCapacity(limit)
        while let row = try rows.next() { out.append(try value(row)) }
        return out
    }

    /// `page`, each row read through SQLite's C API (`SQLiteRow`) instead of GRDB's `Row`: for
    /// the pages a derive reads, where the per-value decoding showed in the profile.
    func rows<T>(
        _ db: Database, _ select: String, after: Int64, upTo: Int64, limit: Int, _ value: (SQLiteRow) throws -> T
    ) throws -> [T] {
        let statement = try db.cachedStatement(
            sql: select + "\nWHERE record.seq > ? AND record.seq <= ?\(sql)\nORDER BY record.seq LIMIT ?")
        try statement.setArguments([after, upTo] + arguments + [limit])
        let handle = statement.sqliteStatement
        // Reset whatever happens: a statement left stepping keeps the read transaction open.
        defer { sqlite3_reset(handle) }
        var out: [T] = []
        out.reserveCapacity(limit)
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code),
                    message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                    sql: statement.sql)
            }
            out.append(try value(SQLiteRow(statement: handle)))
        }
        return out
    }
}
