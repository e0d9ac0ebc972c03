/// One stored column of a summary row, in storage order (`summary` and `summary_history`
/// share them): the row's own columns (version, fingerprint, time, run, JSON) and one per
/// summary field with a `column` in `RoomSummary.fields`, which is where the stored fields
/// come from. The one table the engines generate their summary select lists, upserts, array
/// bindings, casts and reads from. The frozen migrations keep their own DDL; a test compares
/// both engines' live schemas with this table.
package struct SummaryColumn: Hashable, Sendable {
    /// What it holds.
    package let kind: Kind
    /// Where its value lives in a `StoredSummary`.
    let source: Source
    /// Its position in a row of every column (`c<index>` aliases, rows read in table order).
    package let index: Int

    /// What a column holds.
    package enum Kind: Sendable {
        case integer, real, text

        /// The standard SQL type both engines cast to.
        package var sqlType: String {
            switch self {
            case .integer: "BIGINT"
            case .real: "DOUBLE PRECISION"
            case .text: "TEXT"
            }
        }
    }

    /// Where a column's value lives in a `StoredSummary`.
    enum Source: Hashable, Sendable {
        case summaryVersion, fingerprint, derivedAt, runID, summaryJSON
        /// A summary field's value: `StoredSummary.fieldValues[i]`, `storedFields[i]`.
        case field(Int)
    }

    /// Whether it may be NULL (only `run_id`: summaries from before runs were recorded).
    package var isNullable: Bool { source == .runID }

    /// The column's name (kept apart, so a column is a plain value the per-record loops copy
    /// without reference counting).
    package var name: String { Self.names[index] }

    package static func == (a: Self, b: Self) -> Bool { a.index == b.index }
    package func hash(into hasher: inout Hasher) { hasher.combine(index) }
}

extension SummaryColumn {
    /// The field columns of the first schema (`v1-initial`), in its order: frozen like the
    /// migration itself. A column added since is appended after `summary_json`, in the order of
    /// `RoomSummary.fields`, and is one of `additions`.
    private static let firstSchemaFields = [
        "floor_area_sqm", "ceiling_height_m", "wall_count", "object_count", "door_count", "window_count",
        "opening_count", "volume_m3", "floor_area_method",
    ]

    /// The summary fields stored in a column, in the order of `StoredSummary.fieldValues`
    /// (storage order): the first schema's, then those added since.
    package static let storedFields: [RoomSummary.Field] = {
        let stored = RoomSummary.fields.filter { $0.column != nil }
        let first = firstSchemaFields.map { name in
            guard let field = stored.first(where: { $0.column == name }) else {
                preconditionFailure("the first schema's column \(name) has no field in RoomSummary.fields")
            }
            return field
        }
        return first + stored.filter { !firstSchemaFields.contains($0.column!) }
    }()

    /// Every column's name, kind and place, in storage order.
    private static let layout: [(name: String, kind: Kind, source: Source)] = {
        let fields = storedFields.enumerated().map { i, field in (field.column!, Kind(field.kind), Source.field(i)) }
        return [
            ("summary_version", .integer, .summaryVersion), ("fingerprint", .text, .fingerprint),
            ("derived_at", .text, .derivedAt), ("run_id", .integer, .runID),
        ] + fields.prefix(firstSchemaFields.count) + [("summary_json", .text, .summaryJSON)]
            + fields.dropFirst(firstSchemaFields.count)
    }()

    /// Every column, in storage order.
    package static let allCases = layout.indices.map {
        SummaryColumn(kind: layout[$0].kind, source: layout[$0].source, index: $0)
    }

    /// Every column's name, in storage order.
    private static let names = layout.map(\.name)

    /// The column named `name`, nil when none is.
    package static func named(_ name: String) -> SummaryColumn? { allCases.first { $0.name == name } }

    /// `summary_version`.
    package static let summaryVersion = allCases[0]
    /// `fingerprint`.
    package static let fingerprint = allCases[1]
    /// `derived_at`.
    package static let derivedAt = allCases[2]
    /// `run_id`.
    package static let runID = allCases[3]
    /// `summary_json`.
    package static let summaryJSON = allCases.first { $0.source == .summaryJSON }!

    /// The columns added after the first schema, in order: each engine generates the migration
    /// that adds one from it, so a new stored field is its row in `RoomSummary.fields` alone.
    package static let additions: [SummaryColumnAddition] = allCases.dropFirst(firstSchemaFields.count + 5).map {
        SummaryColumnAddition(name: $0.name, kind: $0.kind)
    }

    /// Every column's name, comma-separated, each after `prefix` (`h.`, …).
    package static func list(prefix: String = "") -> String {
        allCases.map { prefix + $0.name }.joined(separator: ", ")
    }

    /// Every column of table `table` selected as `alias` + name (`h.fingerprint AS h_fingerprint`):
    /// a row holding two summaries, read back with `StoredSummary(reading:)` by those names.
    package static func aliasedList(of table: String, as alias: String) -> String {
        allCases.map { "\(table).\($0.name) AS \(alias)\($0.name)" }.joined(separator: ", ")
    }

    /// `col = <the new row's col>` for every column, in `dialect` (`excluded.col`): the
    /// `DO UPDATE SET` list of a summary upsert.
    package static func upsertAssignments(_ dialect: StoreDialect) -> String {
        dialect.upsertAssignments(allCases.map(\.name))
    }

    /// The columns every summary of one derive or import batch shares (the deriver's version
    /// and fingerprint, the time, the run): an engine may bind them once for the batch.
    package static let sameForAWriteBatch: Set<SummaryColumn> = [.summaryVersion, .fingerprint, .derivedAt, .runID]
}

extension SummaryColumn.Kind {
    /// The column kind of a summary field's kind (a structured field has no column).
    init(_ kind: RoomSummary.Key.Kind) {
        switch kind {
        case .count: self = .integer
        case .float: self = .real
        case .string: self = .text
        case .structured: preconditionFailure("a structured summary field is stored only in the JSON")
        }
    }
}
