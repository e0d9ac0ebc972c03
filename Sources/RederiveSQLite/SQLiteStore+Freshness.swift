import GRDB
import RederiveCore

extension SQLiteStore {
    /// `SummaryFreshness.sqlCondition` for `cases` in SQLite's words, with its arguments.
    static func freshnessSQL(
        _ cases: Set<SummaryFreshness>, deriver: SummaryDeriver
    ) -> (sql: String, arguments: StatementArguments) {
        var arguments = SQLiteArguments()
        let sql = arguments.freshness(cases, deriver: deriver)
        return (sql, arguments.arguments)
    }

    /// Records by freshness for `deriver` (up to key `upTo` when given), in one pass.
    static func freshnessCounts(
        _ db: Database, deriver: SummaryDeriver, upTo: Int64? = nil
    ) throws -> SummaryFreshness.Counts {
        var arguments = SQLiteArguments()
        let expression = arguments.freshnessCase(deriver: deriver)
        var bound = ""
        if let upTo { bound = " WHERE record.seq <= \(arguments.bind(.integer(upTo)))" }
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT \(expression) AS freshness, COUNT(*) AS n
                FROM record LEFT JOIN summary ON summary.record_seq = record.seq\(bound) GROUP BY freshness
                """, arguments: arguments.arguments)
        return SummaryFreshness.Counts(rows.map { ($0["freshness"], $0["n"]) })
    }
}
