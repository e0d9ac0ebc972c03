import Foundation

/// What a derive would change, without writing anything: the result of `derive --dry-run`.
///
/// Every examined record falls in exactly one of: would change (some summary value differs),
/// unchanged (same values), never derived before (no stored summary), would fail.
/// Values are compared at the level of the summary JSON (numbers rounded to 2 decimals),
/// which is what the app shows.
public struct ChangeReport: Sendable {
    /// How a summary field's change is described.
    public enum FieldKind: String, Sendable {
        /// A number: distribution of after − before.
        case numeric
        /// A name: before → after transition counts.
        case categorical
        /// An object or array: only how many records change.
        case structured
    }

    /// One histogram bucket: deltas in `lower ..< upper` (nil bound: unbounded).
    public struct Bucket: Sendable, Equatable {
        /// Display label, e.g. `"1 to 10"`.
        public var label: String
        /// Inclusive lower bound (nil: −∞).
        public var lower: Double?
        /// Exclusive upper bound (nil: +∞).
        public var upper: Double?
        /// Records whose delta falls here.
        public var count: Int
    }

    /// A categorical change and how many records make it.
    public struct Transition: Sendable, Equatable {
        /// The stored value (`(missing)` when the key is absent).
        public var before: String
        /// The new value.
        public var after: String
        /// Records making this transition.
        public var count: Int
    }

    /// How one summary JSON key would change over the examined records that had a summary.
    public struct FieldChange: Sendable {
        /// The summary JSON key, e.g. `estimated_floor_area_sqm`.
        public var key: String
        /// How the change is described.
        public var kind: FieldKind
        /// Records whose value would change.
        public var changed: Int
        /// Smallest after − before (numeric fields with a change whose both sides are numbers).
        public var minDelta: Double?
        /// Median after − before.
        public var medianDelta: Double?
        /// Largest after − before.
        public var maxDelta: Double?
        /// Changes from exactly 0 to non-zero: the signature of the old floor-area bug.
        public var fromZero: Int
        /// Distribution of after − before over fixed buckets (numeric fields; empty otherwise).
        public var histogram: [Bucket]
        /// before → after counts, most frequent first (categorical fields; empty otherwise).
        public var transitions: [Transition]
    }

    /// One record among the largest floor-area changes.
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
    /// Failed records, ordered by id, at most `ChangeCollector.failureListLimit`.
    public var failures: [Failure] = []
    /// Per summary key, in summary JSON order (unknown keys found in stored summaries last, sorted).
    public var fields: [FieldChange] = []
    /// The largest changes by |Δ estimated_floor_area_sqm|, ties by id.
    public var largestChanges: [RecordChange] = []

    /// Records already up to date: same values, same version, same fingerprint, same text.
    public var upToDate: Int { unchanged - versionOnly }
    /// Records a derive would write a summary for.
    public var wouldWrite: Int { wouldChange + versionOnly + neverDerived }
    /// Exit status for the dry run: 3 when some records would fail, else 0.
    public var exitStatus: Int32 { wouldFail > 0 ? 3 : 0 }

    /// The field entry for `key`, if present.
    public func field(_ key: String) -> FieldChange? { fields.first { $0.key == key } }

    /// The one-line tally for stderr.
    public func tallyLine() -> String {
        var line = "derive --dry-run: \(examined) examined, \(wouldChange) would change, \(unchanged) unchanged"
        if versionOnly > 0 { line += " (\(versionOnly) version/fingerprint only)" }
        line += ", \(neverDerived) never derived, \(wouldFail) would fail"
        if !failuresByCode.isEmpty {
            line += " (" + failuresByCode.keys.sorted().map { "\(failuresByCode[$0]!) \($0)" }.joined(separator: ", ") + ")"
        }
        line += " in \(format(seconds, 2)) s; nothing written"
        return line
    }
}

/// Accumulates a `ChangeReport` one record at a time (stored summary vs new summary).
///
/// Memory grows with the number of changed records only (one delta per changed numeric
/// field); the top list and the failure list are trimmed as they grow. Not thread-safe:
/// feed it from one thread.
public final class ChangeCollector {
    /// The summary JSON keys in order, with how each is described.
    public static let summaryFields: [(key: String, kind: ChangeReport.FieldKind)] = [
        ("wall_count", .numeric), ("door_count", .numeric), ("window_count", .numeric),
        ("opening_count", .numeric), ("object_count", .numeric), ("ceiling_height_m", .numeric),
        ("estimated_floor_area_sqm", .numeric), ("floor_area_method", .categorical), ("volume_m3", .numeric),
        ("total_wall_area_sqm", .numeric), ("perimeter_m", .numeric), ("longest_wall_m", .numeric),
        ("shortest_wall_m", .numeric), ("room_shape", .categorical), ("object_categories", .structured),
        ("section_labels", .structured), ("floor_polygon_2d_m", .structured),
    ]

    /// Failed records listed individually (the counts by code cover all of them).
    public static let failureListLimit = 100

    /// Delta histogram edges: symmetric decades, so a fix of a few cm and one of 10 m² stand apart.
    static let bucketEdges: [Double] = [-100, -10, -1, -0.1, 0, 0.1, 1, 10, 100]

    private let summaryVersion: Int
    private let fingerprint: String?
    private let topCount: Int
    private var totals: ChangeReport
    private var accumulators: [String: FieldAccumulator] = [:]
    private var top: [ChangeReport.RecordChange] = []
    private var failures: [ChangeReport.Failure] = []

    private struct FieldAccumulator {
        var kind: ChangeReport.FieldKind
        var changed = 0
        var deltas: [Double] = []
        var fromZero = 0
        var transitions: [String: [String: Int]] = [:]
    }

    /// Creates a collector for a derivation writing `summaryVersion` and `fingerprint`
    /// (a nil fingerprint is not compared), keeping the `topCount` largest changes.
    public init(summaryVersion: Int = SummaryDeriver.currentVersion, fingerprint: String? = nil, topCount: Int = 20) {
        self.summaryVersion = summaryVersion
        self.fingerprint = fingerprint
        self.topCount = max(0, topCount)
        totals = ChangeReport(summaryVersion: summaryVersion, fingerprint: fingerprint)
        for (key, kind) in Self.summaryFields { accumulators[key] = FieldAccumulator(kind: kind) }
    }

    /// Adds one record that derives: its stored summary (nil when never derived) and the new one.
    ///
    /// The comparison is between the parsed stored JSON and the parsed `newJSON` (what a derive
    /// would store), numbers rounded to 2 decimals; `newSummary` is that same summary, typed.
    public func add(id: String, roomName: String?, storedJSON: String?, storedVersion: Int?,
                    storedFingerprint: String? = nil, newSummary: RoomSummary, newJSON: [UInt8]) {
        totals.examined += 1
        guard let storedJSON else {
            totals.neverDerived += 1
            return
        }
        let before = Self.parseObject(Data(storedJSON.utf8))
        if before == nil { totals.storedUnreadable += 1 }
        // Our own JSON always parses; fall back to an empty object rather than trap.
        let after = Self.parseObject(Data(newJSON)) ?? [:]
        let old = before ?? [:]

        var changedKeys: [String] = []
        var keys = Self.summaryFields.map(\.key)
        let extra = Set(old.keys).union(after.keys).subtracting(keys)
        keys += extra.sorted()
        for key in keys {
            let b = old[key], a = after[key]
            if b == a && before != nil { continue }
            changedKeys.append(key)
            var acc = accumulators[key] ?? FieldAccumulator(kind: .structured)
            acc.changed += 1
            switch acc.kind {
            case .numeric:
                if case .number(let x)? = b, case .number(let y)? = a {
                    acc.deltas.append(RoomSummary.roundedForJSON(y - x))
                    if x == 0 && y != 0 { acc.fromZero += 1 }
                }
            case .categorical:
                acc.transitions[b?.displayText ?? "(missing)", default: [:]][a?.displayText ?? "(missing)", default: 0] += 1
            case .structured:
                break
            }
            accumulators[key] = acc
        }

        if changedKeys.isEmpty {
            totals.unchanged += 1
            let sameStamp = storedVersion == summaryVersion && (fingerprint == nil || storedFingerprint == fingerprint)
            if !sameStamp || !storedJSON.utf8.elementsEqual(newJSON) { totals.versionOnly += 1 }
            return
        }
        totals.wouldChange += 1
        guard topCount > 0 else { return }
        let areaKey = "estimated_floor_area_sqm", methodKey = "floor_area_method"
        var change = ChangeReport.RecordChange(
            id: id, roomName: roomName, floorAreaBefore: old[areaKey]?.number, floorAreaAfter: after[areaKey]?.number,
            floorAreaDelta: nil, methodBefore: old[methodKey]?.displayText, methodAfter: after[methodKey]?.displayText,
            changedFields: changedKeys)
        if let x = change.floorAreaBefore, let y = change.floorAreaAfter { change.floorAreaDelta = RoomSummary.roundedForJSON(y - x) }
        top.append(change)
        if top.count >= topCount * 2 + 16 { trimTop() }
    }

    /// Adds one record whose decoding or derivation would fail.
    public func addFailure(id: String, roomName: String?, stage: String, code: String, message: String) {
        totals.examined += 1
        totals.wouldFail += 1
        totals.failuresByCode[code, default: 0] += 1
        failures.append(ChangeReport.Failure(id: id, roomName: roomName, stage: stage, code: code, message: message))
        if failures.count >= Self.failureListLimit * 2 { trimFailures() }
    }

    /// The report so far (the collector can keep going afterwards).
    public func report() -> ChangeReport {
        trimTop()
        trimFailures()
        var out = totals
        out.largestChanges = top
        out.failures = failures
        var keys = Self.summaryFields.map(\.key)
        keys += Set(accumulators.keys).subtracting(keys).sorted()
        out.fields = keys.map { key in
            let acc = accumulators[key]!
            var field = ChangeReport.FieldChange(key: key, kind: acc.kind, changed: acc.changed, minDelta: nil, medianDelta: nil,
                                                 maxDelta: nil, fromZero: acc.fromZero, histogram: [], transitions: [])
            if acc.kind == .numeric {
                let sorted = acc.deltas.sorted()
                if !sorted.isEmpty {
                    field.minDelta = sorted.first
                    field.maxDelta = sorted.last
                    let mid = sorted.count / 2
                    field.medianDelta = sorted.count % 2 == 1 ? sorted[mid] : RoomSummary.roundedForJSON((sorted[mid - 1] + sorted[mid]) / 2)
                }
                field.histogram = Self.histogram(sorted)
            }
            for (before, afters) in acc.transitions {
                for (after, count) in afters { field.transitions.append(.init(before: before, after: after, count: count)) }
            }
            field.transitions.sort { ($0.count, $1.before, $1.after) > ($1.count, $0.before, $0.after) }
            return field
        }
        return out
    }

    /// Counts `deltas` into the fixed buckets (all buckets listed, so the shape is stable).
    static func histogram(_ deltas: [Double]) -> [ChangeReport.Bucket] {
        let edges = bucketEdges
        var buckets: [ChangeReport.Bucket] = []
        for i in 0...edges.count {
            let lower = i == 0 ? nil : edges[i - 1]
            let upper = i == edges.count ? nil : edges[i]
            let label: String = switch (lower, upper) {
            case (nil, let u?): "< \(text(u))"
            case (let l?, nil): "≥ \(text(l))"
            case (let l?, let u?): "\(text(l)) to \(text(u))"
            default: "all"
            }
            buckets.append(.init(label: label, lower: lower, upper: upper, count: 0))
        }
        for d in deltas {
            // First edge above d; deltas equal to an edge go to the bucket starting there.
            let index = edges.firstIndex { d < $0 } ?? edges.count
            buckets[index].count += 1
        }
        return buckets
    }

    private static func text(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    private func trimTop() {
        top.sort { a, b in
            let x = a.floorAreaDelta.map(abs) ?? -1, y = b.floorAreaDelta.map(abs) ?? -1
            return x != y ? x > y : a.id < b.id
        }
        if top.count > topCount { top.removeLast(top.count - topCount) }
    }

    private func trimFailures() {
        failures.sort { $0.id < $1.id }
        if failures.count > Self.failureListLimit { failures.removeLast(failures.count - Self.failureListLimit) }
    }

    /// A JSON object's values in comparable form, or nil when the text is not a JSON object.
    static func parseObject(_ data: Data) -> [String: SummaryValue]? {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
        return object.mapValues(SummaryValue.init)
    }
}

/// A summary JSON value in comparable form: numbers rounded to 2 decimals, so a stored
/// `2.4` and a new `2.40000001` (never written, but possible in older stores) compare equal.
enum SummaryValue: Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([SummaryValue])
    case object([String: SummaryValue])

    init(_ any: Any) {
        switch any {
        case let s as String: self = .string(s)
        case is NSNull: self = .null
        case let a as [Any]: self = .array(a.map(SummaryValue.init))
        case let o as [String: Any]: self = .object(o.mapValues(SummaryValue.init))
        // NSNumber before Bool: on Linux a JSON number bridges to Bool when it is 0 or 1.
        case let n as NSNumber: self = .number(RoomSummary.roundedForJSON(n.doubleValue))
        case let i as Int: self = .number(Double(i))
        case let d as Double: self = .number(RoomSummary.roundedForJSON(d))
        case let b as Bool: self = .bool(b)
        default: self = .string(String(describing: any))
        }
    }

    var number: Double? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// Short text for transition tables.
    var displayText: String {
        switch self {
        case .null: "null"
        case .bool(let b): String(b)
        case .number(let n): JSONText.number(n)
        case .string(let s): s
        case .array(let a): "[" + a.map(\.displayText).joined(separator: ",") + "]"
        case .object(let o): "{" + o.keys.sorted().map { "\($0):\(o[$0]!.displayText)" }.joined(separator: ",") + "}"
        }
    }
}

extension ChangeReport {
    /// The default preview directory for a store: `PATH-preview` next to it.
    public static func defaultDirectory(forStore path: String) -> String { path + "-preview" }

    /// Writes `preview.md` and `preview.json` into `directory` (created when absent), each
    /// through a temporary name renamed into place, so a reader never sees half a file.
    /// Returns the two paths.
    @discardableResult
    public func write(toDirectory directory: String) throws(RederiveError) -> (markdown: String, json: String) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .io("\(directory): cannot create the preview directory: \(error.localizedDescription)")
        }
        let md = (directory as NSString).appendingPathComponent("preview.md")
        let js = (directory as NSString).appendingPathComponent("preview.json")
        try Self.writeAtomically(markdown(), to: md)
        try Self.writeAtomically(json() + "\n", to: js)
        return (md, js)
    }

    private static func writeAtomically(_ text: String, to path: String) throws(RederiveError) {
        let temp = path + ".tmp-\(getpid())"
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: temp))
        } catch {
            try? FileManager.default.removeItem(atPath: temp)
            throw .io("\(temp): cannot write: \(error.localizedDescription)")
        }
        if rename(temp, path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temp)
            throw .io("\(path): cannot rename into place: \(reason)")
        }
    }
}
