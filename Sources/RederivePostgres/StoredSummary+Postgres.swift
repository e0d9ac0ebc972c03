import RederiveCore

/// Summary rows read from and bound to PostgreSQL through the column table (`SummaryColumn`):
/// what `rederive revert` restores is exactly what was read.
extension StoredSummary {
    /// The summary of `row`, its columns selected as `prefix` + name (`h_summary_version`, …).
    init(_ row: PostgresRow, prefix: String) throws {
        try self.init { try StoredValue(row[prefix + $0.name]) }
    }
}

extension StoredValue {
    /// A cell as an engine-neutral value, by the type the server sent it as.
    init(_ cell: PostgresCell) throws {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        switch cell.dataType {
        case .int2, .int4, .int8: self = .integer(try cell.decode(Int64.self))
        case .float4, .float8: self = .real(try cell.decode(Double.self))
        default: self = .text(try cell.decode(String.self))
        }
    }
}

extension SummaryColumn {
    /// The select list and `unnest` arrays that write `rows` (one per record, in order),
    /// generated from the column table: each column one array (`c<index>`, read from `n`),
    /// typed by its kind; a column in `shared` (the same in every row, as
    /// `sameForAWriteBatch` of a derive batch) is bound once from the first row instead.
    static func unnest(
        _ rows: [StoredSummary], sharing shared: Set<SummaryColumn> = [], _ args: inout SQLArguments
    ) -> (arrays: [String], aliases: [String], select: [String]) {
        var arrays: [String] = []
        var aliases: [String] = []
        var select: [String] = []
        guard let first = rows.first else { return ([], [], []) }
        for column in allCases {
            if shared.contains(column) {
                switch (column.kind, column.isNullable) {
                case (.integer, false): select.append(args.add(first[column].integerValue ?? 0) + "::int8")
                case (.integer, true): select.append(args.add(first[column].integerValue) + "::int8")
                case (.real, _): select.append(args.add(first[column].realValue ?? 0) + "::float8")
                case (.text, _): select.append(args.add(first[column].textValue ?? "") + "::text")
                }
                continue
            }
            switch (column.kind, column.isNullable) {
            case (.integer, false): arrays.append(args.add(rows.map { $0[column].integerValue ?? 0 }) + "::int8[]")
            case (.integer, true): arrays.append(args.add(rows.map { $0[column].integerValue }) + "::int8[]")
            case (.real, _): arrays.append(args.add(rows.map { $0[column].realValue ?? 0 }) + "::float8[]")
            case (.text, _): arrays.append(args.add(rows.map { $0[column].textValue ?? "" }) + "::text[]")
            }
            aliases.append("c\(column.index)")
            select.append("n.c\(column.index)")
        }
        return (arrays, aliases, select)
    }

    /// The rows `unnest` generated, as a FROM item `n` with columns `seq` (from `seqArray`) and
    /// the aliases. `unnest` in the select list streams the rows (a ProjectSet); in FROM
    /// (`ROWS FROM`) the server first copies them all into a tuple store: 5% of the writing
    /// backend's time in a derive.
    static func rows(
        seq seqArray: String, _ generated: (arrays: [String], aliases: [String], select: [String])
    ) -> String {
        let columns = zip(generated.arrays, generated.aliases).map { "unnest(\($0)) AS \($1)" }
        return "(SELECT " + (["unnest(\(seqArray)::int8[]) AS seq"] + columns).joined(separator: ", ") + ") AS n"
    }
}
