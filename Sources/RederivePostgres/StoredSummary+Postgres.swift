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
    /// typed through its key path; a column in `shared` (the same in every row, as
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
                switch column.field {
                case .integer(let path): select.append(args.add(first[keyPath: path]) + "::int8")
                case .optionalInteger(let path): select.append(args.add(first[keyPath: path]) + "::int8")
                case .real(let path): select.append(args.add(first[keyPath: path]) + "::float8")
                case .text(let path): select.append(args.add(first[keyPath: path]) + "::text")
                }
                continue
            }
            switch column.field {
            case .integer(let path): arrays.append(args.add(rows.map { $0[keyPath: path] }) + "::int8[]")
            case .optionalInteger(let path): arrays.append(args.add(rows.map { $0[keyPath: path] }) + "::int8[]")
            case .real(let path): arrays.append(args.add(rows.map { $0[keyPath: path] }) + "::float8[]")
            case .text(let path): arrays.append(args.add(rows.map { $0[keyPath: path] }) + "::text[]")
            }
            aliases.append("c\(column.index)")
            select.append("n.c\(column.index)")
        }
        return (arrays, aliases, select)
    }
}
