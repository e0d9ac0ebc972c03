import Foundation

/// What a derive would change, without writing anything: the result of `derive --dry-run`.
///
/// Every examined record falls in exactly one of: would change (some summary value differs),
/// unchanged (same values), never derived before (no stored summary), would fail.
/// Values are compared at the level of the summary JSON (numbers rounded to 2 decimals),
/// which is what the app shows. Built by `ChangeCollector`; rendered by `markdown()`,
/// `json()` and `html()`, and written with the full change list by `write(toDirectory:)`.
public struct ChangeReport: Sendable {
    /// How a summary field's change is described (`RoomSummary.Key.Kind`; keys found only in
    /// stored summaries are `structured`).
    public typealias FieldKind = RoomSummary.Key.Kind

    /// Five-number summary of some values: exact (type 7 quartiles, the linear interpolation
    /// of numpy's default), rounded to the values' resolution.
    public struct Distribution: Sendable, Equatable {
        /// How many values.
        public var count: Int
        /// Smallest.
        public var min: Double
        /// First quartile.
        public var q1: Double
        /// Median.
        public var median: Double
        /// Third quartile.
        public var q3: Double
        /// Largest.
        public var max: Double

        /// Creates a distribution.
        public init(count: Int, min: Double, q1: Double, median: Double, q3: Double, max: Double) {
            (self.count, self.min, self.q1, self.median, self.q3, self.max) = (count, min, q1, median, q3, max)
        }
    }

    /// Equal-width bins chosen from the data (see `Histogram.bins(...)`), holding one series
    /// (a change) or two over the same bins (before, after).
    public struct Histogram: Sendable, Equatable {
        /// Lower edge of the first bin.
        public var start: Double
        /// Bin width.
        public var width: Double
        /// Counts per bin, one array per series, each `binCount` long.
        public var series: [[Int]]

        /// Creates a histogram.
        public init(start: Double, width: Double, series: [[Int]]) {
            self.start = start
            self.width = width
            self.series = series
        }

        /// Number of bins.
        public var binCount: Int { series.first?.count ?? 0 }
        /// Lower edge of bin `i` (bin `i` holds `lower(i) ..< lower(i + 1)`).
        public func lower(_ i: Int) -> Double { start + Double(i) * width }
    }

    /// A before → after transition and how many records make it.
    public struct Transition: Sendable, Equatable {
        /// The stored value (`(missing)` when the key is absent).
        public var before: String
        /// The new value.
        public var after: String
        /// Records making this transition.
        public var count: Int
    }

    /// One record's change of one numeric field.
    public struct ValueChange: Sendable, Equatable {
        /// Record id.
        public var id: String
        /// Room name, when known.
        public var roomName: String?
        /// Stored value.
        public var before: Double
        /// New value.
        public var after: Double
        /// after − before.
        public var delta: Double
        /// (after − before) / |before|; nil when before is 0.
        public var relative: Double?
    }

    /// How one summary JSON key would change over the examined records that had a summary.
    public struct FieldChange: Sendable {
        /// The summary JSON key, e.g. `estimated_floor_area_sqm`.
        public var key: String
        /// How the change is described.
        public var kind: FieldKind
        /// Unit of a float field (`m`, `m²`, `m³`).
        public var unit: String?
        /// Records whose value would change.
        public var changed: Int
        /// after − before over the changed records with a number on both sides (float, count).
        public var delta: Distribution?
        /// (after − before) / |before|, a fraction (0.05 = +5 %), over those with before ≠ 0.
        public var relative: Distribution?
        /// The stored values of the changed records.
        public var before: Distribution?
        /// The new values of the changed records.
        public var after: Distribution?
        /// Changes from exactly 0 (no relative change): the signature of the old floor-area bug.
        public var fromZero: Int
        /// after − before, binned from the data.
        public var deltaHistogram: Histogram?
        /// The relative change, binned from the data.
        public var relativeHistogram: Histogram?
        /// Before (series 0) and after (series 1) over the same bins.
        public var valueHistogram: Histogram?
        /// before → after counts, most frequent first (count and string fields).
        public var transitions: [Transition]
        /// The largest changes by |after − before|, ties by id.
        public var largestAbsolute: [ValueChange]
        /// The largest changes by |relative change|, ties by id (records with before = 0 excluded).
        public var largestRelative: [ValueChange]
        /// Geometric (float) fields: the records with the largest |Δ| (at most
        /// `ChangeThumbnails.defaultLimit`), each with a drawing of its room; empty when the
        /// dry run was not given the raw rooms.
        public var thumbnails: [RoomThumbnail] = []

        /// Smallest after − before.
        public var minDelta: Double? { delta?.min }
        /// Median after − before.
        public var medianDelta: Double? { delta?.median }
        /// Largest after − before.
        public var maxDelta: Double? { delta?.max }
    }

    /// One record among the largest floor-area changes (kept for scripts reading
    /// `largestChanges`; the per-field lists rank every numeric field).
    public struct RecordChange: Sendable, Equatable {
        /// Record id.
        public var id: String
        /// Room name, when known.
        public var roomName: String?
        /// Stored `estimated_floor_area_sqm` (nil when absent or not a number).
        public var floorAreaBefore: Double?
        /// New `estimated_floor_area_sqm` (2 decimals).
        public var floorAreaAfter: Double?
        /// after − before (nil when either side is missing).
        public var floorAreaDelta: Double?
        /// Stored `floor_area_method`.
        public var methodBefore: String?
        /// New `floor_area_method`.
        public var methodAfter: String?
        /// Keys whose value would change, in summary order.
        public var changedFields: [String]
    }

    /// A record whose derivation would fail.
    public struct Failure: Sendable, Equatable {
        /// Record id.
        public var id: String
        /// Room name, when known.
        public var roomName: String?
        /// Stage (`decode` or `derive`).
        public var stage: String
        /// Stable error code.
        public var code: String
        /// What is wrong.
        public var message: String
    }

    /// A record with no stored summary yet.
    public struct NewRecord: Sendable, Equatable {
        /// Record id.
        public var id: String
        /// Room name, when known.
        public var roomName: String?
        /// The floor-area method the new summary uses.
        public var method: String
    }

    /// How the examined records of one group (one method, one format version, one file...) fare.
    public struct BreakdownRow: Sendable, Equatable {
        /// The group, e.g. `wall_hull`, `3`, `exports/2026-11-01.jsonl.zst`.
        public var value: String
        /// Records examined.
        public var examined = 0
        /// Records whose values would change.
        public var changed = 0
        /// Records whose values stay the same.
        public var unchanged = 0
        /// Records with no stored summary.
        public var neverDerived = 0
        /// Records that would fail.
        public var wouldFail = 0
        /// Of `changed`: records changing each key.
        public var fieldsChanged: [String: Int] = [:]
    }

    /// One summary version's note, between the stored versions and the new one.
    public struct VersionNote: Sendable, Equatable {
        /// The version.
        public var version: Int
        /// Its one-line note (`SummaryDeriver.versionNotes`); nil when none was written.
        public var note: String?
    }

    /// The store previewed (set by `DeriveJob.preview`).
    public var store: String?
    /// The selection's description (`stale`, `all`, ...).
    public var selection: String?
    /// Summary version the derive would write.
    public var summaryVersion: Int
    /// Derivation fingerprint the derive would write (nil when not given to the collector).
    public var fingerprint: String?
    /// Wall-clock seconds the preview took.
    public var seconds: Double = 0

    /// Records examined.
    public var examined = 0
    /// What a derive would write, with its digest (for plans and guards); set by the dry run.
    public var tally: ChangeTally?
    /// The highest record key the dry run visited up to (a plan's high-water mark).
    public var highWaterMark: Int64?
    /// The last run in the store's history when the dry run started (a plan's `lastRunID`).
    public var lastRunID: Int64?
    /// Records with a stored summary whose values would change.
    public var wouldChange = 0
    /// Records whose values stay the same.
    public var unchanged = 0
    /// Of `unchanged`: records a derive would still rewrite (version or fingerprint bump, or
    /// a different JSON text for the same values).
    public var versionOnly = 0
    /// Records with no stored summary yet.
    public var neverDerived = 0
    /// Records whose derivation would fail.
    public var wouldFail = 0
    /// Of the records with a summary: stored JSON that is not a JSON object (every field counts as changed).
    public var storedUnreadable = 0
    /// Failures by error code.
    public var failuresByCode: [String: Int] = [:]
    /// Failed records, ordered by id, at most `ChangeCollector.listLimit`.
    public var failures: [Failure] = []
    /// New records' floor-area methods, with counts.
    public var newRecordsByMethod: [String: Int] = [:]
    /// New records, ordered by id, at most `ChangeCollector.listLimit`.
    public var newRecords: [NewRecord] = []
    /// Per summary key, in `RoomSummary.Key` order (unknown keys found in stored summaries last, sorted).
    public var fields: [FieldChange] = []
    /// The largest changes by |Δ estimated_floor_area_sqm|, ties by id.
    public var largestChanges: [RecordChange] = []
    /// By the stored `floor_area_method` (`(no summary)` for records never derived), by name.
    public var byFloorAreaMethod: [BreakdownRow] = []
    /// By the record's export format version, ascending.
    public var byFormatVersion: [BreakdownRow] = []
    /// By the export file the record was imported from, by name.
    public var bySourceFile: [BreakdownRow] = []
    /// By the stored summary version (`v0`, `v1`...; `(no summary)` last).
    public var byStoredVersion: [BreakdownRow] = []
    /// The notes of the summary versions after the oldest stored one, up to `summaryVersion`.
    public var versionNotes: [VersionNote] = []
    /// The streamed list of changed records, before `write(toDirectory:)` places it.
    var changeList: ChangeListFile?

    /// Records already up to date: same values, same version, same fingerprint, same text.
    public var upToDate: Int { unchanged - versionOnly }
    /// Records a derive would write a summary for.
    public var wouldWrite: Int { wouldChange + versionOnly + neverDerived }
    /// Exit status for the dry run: 3 when some records would fail, else 0.
    public var exitStatus: ExitStatus { wouldFail > 0 ? .skippedRecords : .ok }
    /// The fields with at least one changed record, in order.
    public var changedFields: [FieldChange] { fields.filter { $0.changed > 0 } }

    /// Creates an empty report (normally built by `ChangeCollector`).
    public init(summaryVersion: Int, fingerprint: String?) {
        self.summaryVersion = summaryVersion
        self.fingerprint = fingerprint
    }

    /// The field entry for `key`, if present.
    public func field(_ key: String) -> FieldChange? { fields.first { $0.key == key } }

    /// The field entry for `key`, if present.
    public func field(_ key: RoomSummary.Key) -> FieldChange? { field(key.rawValue) }

    /// The one-line tally for stderr.
    public func tallyLine() -> String {
        var line = "derive --dry-run: \(examined) examined, \(wouldChange) would change, \(unchanged) unchanged"
        if versionOnly > 0 { line += " (\(versionOnly) version/fingerprint only)" }
        line += ", \(neverDerived) never derived, \(wouldFail) would fail"
        if !failuresByCode.isEmpty {
            line +=
                " (" + failuresByCode.keys.sorted().map { "\(failuresByCode[$0]!) \($0)" }.joined(separator: ", ") + ")"
        }
        line += " in \(format(seconds, 2)) s; nothing written"
        return line
    }
}
