import RederiveCore

/// Summary columns read from and bound to PostgreSQL, through their engine-neutral values
/// (`SummaryColumns.Value`): what `rederive revert` restores is exactly what was read.
extension SummaryColumns {
    /// The columns of `row`, selected as `prefix` + name (`h_summary_version`, …).
    init(_ row: PostgresRow, prefix: String) throws {
        self.init(neutral: try Self.names.map { try Self.value(of: row[prefix + $0]) })
    }

    /// A cell as an engine-neutral value, by the type the server sent it as.
    static func value(of cell: PostgresCell) throws -> Value {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        default: return .text(try cell.decode(String.self))
        }
    }

    /// How a column is bound in an array: the kind of its type in `PostgresSchema`.
    private enum Kind {
        case integer, real, text
    }

    private static let kinds: [Kind] = names.map { name in
        switch name {
        case "floor_area_sqm", "ceiling_height_m", "volume_m3": .real
        case "fingerprint", "derived_at", "floor_area_method", "summary_json": .text
        default: .integer
        }
    }

    /// Binds `rows` as one array per column for `unnest`, in `names` order: the `unnest`
    /// arguments, their aliases (`c0`, …) and the select list reading them from `n`.
    /// Arrays are bound without NULL elements (as when written for postgres-nio), so a column
    /// holding NULLs in this batch (`run_id` of an old summary) also gets a mask (`z3`) that
    /// puts them back.
    static func unnest(
        _ rows: [SummaryColumns], _ args: inout SQLArguments
    ) -> (arrays: [String], aliases: [String], select: [String]) {
        var arrays: [String] = []
        var aliases: [String] = []
        var select: [String] = []
        let values = rows.map(\.neutral)
        for (index, kind) in kinds.enumerated() {
            let column = values.map { $0[index] }
            switch kind {
            case .integer:
                arrays.append(args.add(column.map(\.integer)) + "::int8[]")
            case .real:
                arrays.append(args.add(column.map(\.real)) + "::float8[]")
            case .text:
                arrays.append(args.add(column.map(\.text)) + "::text[]")
            }
            aliases.append("c\(index)")
            if column.contains(.null) {
                arrays.append(args.add(column.map { $0 == .null }) + "::bool[]")
                aliases.append("z\(index)")
                select.append("CASE WHEN n.z\(index) THEN NULL ELSE n.c\(index) END")
            } else {
                select.append("n.c\(index)")
            }
        }
        return (arrays, aliases, select)
    }
}

extension SummaryColumns.Value {
    // The value as its column's kind binds it; NULL binds a placeholder its mask hides.
    fileprivate var integer: Int64 {
        switch self {
        case .integer(let value): value
        case .real(let value): Int64(value)
        case .text(let value): Int64(value) ?? 0
        case .null: 0
        }
    }

    fileprivate var real: Double {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        case .text(let value): Double(value) ?? 0
        case .null: 0
        }
    }

    fileprivate var text: String {
        switch self {
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): value
        case .null: ""
        }
    }
}
