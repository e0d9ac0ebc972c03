import GRDB
import RederiveCore

extension Store {
    /// `SummaryFreshness.sqlCondition` for `cases` in SQLite's words, with its arguments.
    static func freshnessSQL(
        _ cases: Set<SummaryFreshness>, deriver: SummaryDeriver
    ) -> (sql: String, arguments: StatementArguments) {
        var arguments: StatementArguments = []
        let sql = SummaryFreshness.sqlCondition(cases) { parameter in
            switch parameter {
            case .version: arguments += [deriver.version]
            case .fingerprint: arguments += [deriver.fingerprint]
            }
            return "?"
        }
        return (sql, arguments)
    }

    /// Records by freshness for `deriver` (up to key `upTo` when given), in one pass.
    static func freshnessCounts(
        _ db: Database, deriver: SummaryDeriver, upTo: Int64? = nil
    ) throws -> SummaryFreshness.Counts {
        var arguments: StatementArguments = []
        let expression = SummaryFreshness.sqlCase { parameter in
            switch parameter {
            case .version: arguments += [deriver.version]
            case .fingerprint: arguments += [deriver.fingerprint]
            }
            return "?"
        }
        var bound = ""
        if let upTo {
            bound = " WHERE record.seq <= ?"
            arguments += [upTo]
        }
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT \(expression) AS freshness, COUNT(*) AS n
                FROM record LEFT JOIN summary ON summary.record_seq = record.seq\(bound) GROUP BY freshness
                """, arguments: arguments)
        return SummaryFreshness.Counts(rows.map { ($0["freshness"], $0["n"]) })
    }
}
