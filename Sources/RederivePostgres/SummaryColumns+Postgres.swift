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

    /// How each column is bound in an array: its kind in the column table.
    private static let kinds = SummaryColumn.allCases.map(\.kind)

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

extension SummaryColumn {
    /// Whether every summary of one write batch holds the same value (the deriver's version
    /// and fingerprint, the time, the run): bound once, not as an array.
    fileprivate var isSameForABatch: Bool { [.summaryVersion, .fingerprint, .derivedAt, .runID].contains(self) }

    /// The select list and `unnest` arrays that write `writes` (one per record, in order),
    /// generated from the column table: values shared by the batch bound once, the others
    /// one array per column (`c<index>`), read from `n`.
    static func unnest(
        _ writes: [Write], _ args: inout SQLArguments
    ) -> (arrays: [String], aliases: [String], select: [String]) {
        var arrays: [String] = []
        var aliases: [String] = []
        var select: [String] = []
        guard let first = writes.first else { return ([], [], []) }
        for (index, column) in allCases.enumerated() {
            if column.isSameForABatch {
                let value = column.value(of: first)
                switch column.kind {
                case .integer: select.append(args.add(value.integer))
                case .real: select.append(args.add(value.real))
                case .text: select.append(args.add(value.text))
                }
                continue
            }
            let values = writes.map { column.value(of: $0) }
            switch column.kind {
            case .integer: arrays.append(args.add(values.map(\.integer)) + "::int8[]")
            case .real: arrays.append(args.add(values.map(\.real)) + "::float8[]")
            case .text: arrays.append(args.add(values.map(\.text)) + "::text[]")
            }
            aliases.append("c\(index)")
            select.append("n.c\(index)")
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
