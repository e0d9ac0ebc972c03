import RederiveCore

extension PostgresStore {
    /// The statement counting records by `SummaryFreshness` for `deriver` (up to key `upTo`
    /// when given), in one pass; read its rows with `freshnessCounts(_:)`.
    static func freshnessCountsQuery(deriver: SummaryDeriver, upTo: Int64? = nil) -> PostgresSession.Statement {
        var args = SQLArguments()
        let expression = args.freshnessCase(deriver: deriver)
        let bound = upTo.map { " WHERE record.seq <= \(args.add($0))" } ?? ""
        return PostgresSession.Statement(
            """
            SELECT \(expression) AS freshness, count(*) AS n
            FROM record LEFT JOIN summary ON summary.record_seq = record.seq\(bound) GROUP BY 1
            """, args.binds)
    }

    /// The counts in the rows of `freshnessCountsQuery`.
    static func freshnessCounts(_ outcome: PostgresSession.Outcome) throws -> SummaryFreshness.Counts {
        SummaryFreshness.Counts(try outcome.rows.map { (try $0.get("freshness"), try $0.get("n")) })
    }
}
