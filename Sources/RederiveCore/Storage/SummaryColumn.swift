/// One stored column of a summary row, in storage order (`summary` and `summary_history`
/// share them): the one table the engines generate their summary select lists, upserts,
/// array bindings and casts from. The frozen migrations keep their own DDL; a test compares
/// both engines' live schemas with this table.
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

    /// The column's name.
    package var name: String { rawValue }

    /// What it holds.
    package var kind: Kind {
        switch self {
        case .floorAreaSqm, .ceilingHeightM, .volumeM3: .real
        case .fingerprint, .derivedAt, .floorAreaMethod, .summaryJSON: .text
        case .summaryVersion, .runID, .wallCount, .objectCount, .doorCount, .windowCount, .openingCount: .integer
        }
    }

    /// Whether it may be NULL (only `run_id`: summaries from before runs were recorded).
    package var isNullable: Bool { self == .runID }

    /// Its position in a row of every column.
    package var index: Int { Self.allCases.firstIndex(of: self)! }

    /// Every column's name, comma-separated, each after `prefix` (`h.`, …).
    package static func list(prefix: String = "") -> String {
        allCases.map { prefix + $0.name }.joined(separator: ", ")
    }

    /// What one write stores: the summary derived by `deriver` for run `runID` at `now`.
    package struct Write {
        /// The derived summary.
        package var summary: RoomSummary
        /// Its JSON text.
        package var json: String
        /// The deriver that derived it.
        package var deriver: SummaryDeriver
        /// The run writing it.
        package var runID: Int64
        /// When (ISO 8601, UTC).
        package var now: String

        /// Creates a write.
        package init(summary: RoomSummary, json: String, deriver: SummaryDeriver, runID: Int64, now: String) {
            (self.summary, self.json, self.deriver, self.runID, self.now) = (summary, json, deriver, runID, now)
        }
    }

    /// The value `write` stores in this column, engine-neutral.
    package func value(of write: Write) -> SummaryColumns.Value {
        let s = write.summary
        switch self {
        case .summaryVersion: return .integer(Int64(write.deriver.version))
        case .fingerprint: return .text(write.deriver.fingerprint)
        case .derivedAt: return .text(write.now)
        case .runID: return .integer(write.runID)
        case .floorAreaSqm: return .real(s.estimatedFloorAreaSqm)
        case .ceilingHeightM: return .real(s.ceilingHeightM)
        case .wallCount: return .integer(Int64(s.wallCount))
        case .objectCount: return .integer(Int64(s.objectCount))
        case .doorCount: return .integer(Int64(s.doorCount))
        case .windowCount: return .integer(Int64(s.windowCount))
        case .openingCount: return .integer(Int64(s.openingCount))
        case .volumeM3: return .real(s.volumeM3)
        case .floorAreaMethod: return .text(s.floorAreaMethod.rawValue)
        case .summaryJSON: return .text(write.json)
        }
    }
}
