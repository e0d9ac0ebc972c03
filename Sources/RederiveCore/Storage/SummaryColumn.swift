/// One stored column of a summary row, in storage order (`summary` and `summary_history`
/// share them): its name, its property in the typed row (`field`, a key path into
/// `StoredSummary`) and the kind that follows from it. The one table the engines generate
/// their summary select lists, upserts, array bindings, casts and reads from. The frozen
/// migrations keep their own DDL; a test compares both engines' live schemas with this table.
package enum SummaryColumn: String, CaseIterable, Sendable {
    case summaryVersion = "summary_version"
    case fingerprint
    case derivedAt = "derived_at"
    case runID = "run_id"
    case floorAreaSqm = "floor_area_sqm"
    case ceilingHeightM = "ceiling_height_m"
    case wallCount = "wall_count"
    case objectCount = "object_count"
    case doorCount = "door_count"
    case windowCount = "window_count"
    case openingCount = "opening_count"
    case volumeM3 = "volume_m3"
    case floorAreaMethod = "floor_area_method"
    case summaryJSON = "summary_json"

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

    /// Where a column's value lives in a `StoredSummary`, by kind: what engines read, bind
    /// and build arrays through (typed key paths, no boxing).
    package enum Field: Sendable {
        /// An integer column.
        case integer(any WritableKeyPath<StoredSummary, Int> & Sendable)
        /// An integer column that may be NULL.
        case optionalInteger(any WritableKeyPath<StoredSummary, Int64?> & Sendable)
        /// A floating-point column.
        case real(any WritableKeyPath<StoredSummary, Double> & Sendable)
        /// A text column.
        case text(any WritableKeyPath<StoredSummary, String> & Sendable)
    }

    /// The column's name.
    package var name: String { rawValue }

    /// Its property in a `StoredSummary`.
    package var field: Field {
        switch self {
        case .summaryVersion: .integer(\.summaryVersion)
        case .fingerprint: .text(\.fingerprint)
        case .derivedAt: .text(\.derivedAt)
        case .runID: .optionalInteger(\.runID)
        case .floorAreaSqm: .real(\.floorAreaSqm)
        case .ceilingHeightM: .real(\.ceilingHeightM)
        case .wallCount: .integer(\.wallCount)
        case .objectCount: .integer(\.objectCount)
        case .doorCount: .integer(\.doorCount)
        case .windowCount: .integer(\.windowCount)
        case .openingCount: .integer(\.openingCount)
        case .volumeM3: .real(\.volumeM3)
        case .floorAreaMethod: .text(\.floorAreaMethod)
        case .summaryJSON: .text(\.summaryJSON)
        }
    }

    /// What it holds.
    package var kind: Kind {
        switch field {
        case .integer, .optionalInteger: .integer
        case .real: .real
        case .text: .text
        }
    }

    /// Whether it may be NULL (only `run_id`: summaries from before runs were recorded).
    package var isNullable: Bool {
        if case .optionalInteger = field { true } else { false }
    }

    /// Its position in a row of every column (`c<index>` aliases, rows read in table order).
    package var index: Int { Self.allCases.firstIndex(of: self)! }

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
