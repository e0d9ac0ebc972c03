import Foundation

/// How one summary key changes, accumulated record by record for `ChangeCollector`.
struct FieldAccumulator {
    /// Units per 1 of a relative change: 10,000, i.e. a resolution of 0.01 %.
    static let relativeScale = 10_000.0
    /// Units per 1 of a value: the JSON's 2 decimals.
    static let valueScale = 100.0

    let key: String
    let kind: ChangeReport.FieldKind
    var changed = 0
    var fromZero = 0
    var values = ValuePairs()
    var transitions: [String: [String: Int]] = [:]
    var largestAbsolute: TopList<ChangeReport.ValueChange>
    var largestRelative: TopList<ChangeReport.ValueChange>

    init(key: String, kind: ChangeReport.FieldKind, topCount: Int) {
        self.key = key
        self.kind = kind
        largestAbsolute = TopList(limit: topCount) { abs($0.delta) }
        largestRelative = TopList(limit: topCount) { abs($0.relative ?? 0) }
    }

    /// One record whose value of this key differs (a nil side: absent from that summary).
    mutating func add(id: String, roomName: String?, before b: SummaryValue?, after a: SummaryValue?) {
        changed += 1
        if kind == .count || kind == .string {
            transitions[b.map(Self.display) ?? ChangeCollector.missing, default: [:]][
                a.map(Self.display) ?? ChangeCollector.missing, default: 0] += 1
        }
        guard kind == .float || kind == .count, let x = b?.number, let y = a?.number else { return }
        values.append(before: x, after: y)
        if x == 0 { fromZero += 1 }
        let delta = RoomSummary.roundedForJSON(y - x)
        // From whole hundredths, as `ValuePairs.relativeUnits` computes it, so both agree to the last digit.
        let (xu, yu) = ((x * Self.valueScale).rounded(), (y * Self.valueScale).rounded())
        let relative = x == 0 ? nil : ((yu - xu) / abs(xu) * Self.relativeScale).rounded() / Self.relativeScale
        let change = ChangeReport.ValueChange(
            id: id, roomName: roomName, before: x, after: y, delta: delta,
            relative: relative)
        largestAbsolute.add(change, id: id)
        if relative != nil { largestRelative.add(change, id: id) }
    }

    /// Transition text: whole numbers without a fraction (`4 → 5`, not `4.0 → 5.0`).
    static func display(_ value: SummaryValue) -> String {
        if let n = value.number, n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return value.displayText
    }

    /// The field's entry in the report: distributions, histograms, transitions, top lists.
    func fieldChange() -> ChangeReport.FieldChange {
        var field = ChangeReport.FieldChange(
            key: key, kind: kind, unit: RoomSummary.Key(rawValue: key)?.unit, changed: changed, fromZero: fromZero,
            transitions: [], largestAbsolute: largestAbsolute.sorted(), largestRelative: largestRelative.sorted())
        for (before, afters) in transitions {
            for (after, count) in afters { field.transitions.append(.init(before: before, after: after, count: count)) }
        }
        field.transitions.sort { ($0.count, $1.before, $1.after) > ($1.count, $0.before, $0.after) }
        guard values.count > 0 else { return field }

        // One sorted array at a time, so the peak is a few arrays of one field's values.
        let minWidth = kind == .count ? Int(Self.valueScale) : 1
        let before = values.beforeUnits().sorted()
        let after = values.afterUnits().sorted()
        field.before = .of(sorted: before, scale: Self.valueScale)
        field.after = .of(sorted: after, scale: Self.valueScale)
        var both = before + after
        both.sort()
        field.valueHistogram = .bins(sorted: both, series: [before, after], scale: Self.valueScale, minWidth: minWidth)
        both = []
        let deltas = values.deltaUnits().sorted()
        field.delta = .of(sorted: deltas, scale: Self.valueScale)
        field.deltaHistogram = .bins(sorted: deltas, series: [deltas], scale: Self.valueScale, minWidth: minWidth)
        let relative = values.relativeUnits(scale: Self.relativeScale).sorted()
        field.relative = .of(sorted: relative, scale: Self.relativeScale)
        field.relativeHistogram = .bins(sorted: relative, series: [relative], scale: Self.relativeScale, minWidth: 1)
        return field
    }
}

/// Before/after pairs of numbers with 2 decimals, as `Int32` hundredths (8 bytes a pair).
/// A pair with a side beyond ±20,000,000 is kept aside as doubles, so nothing is lost.
struct ValuePairs {
    private static let limit = 2_000_000_000.0
    private var before: [Int32] = []
    private var after: [Int32] = []
    private var outsized: [Int: (Double, Double)] = [:]

    var count: Int { before.count }

    mutating func append(before x: Double, after y: Double) {
        let (u, v) = ((x * 100).rounded(), (y * 100).rounded())
        if abs(u) < Self.limit, abs(v) < Self.limit {
            before.append(Int32(u))
            after.append(Int32(v))
        } else {
            outsized[before.count] = (x, y)
            before.append(0)
            after.append(0)
        }
    }

    private static func units(_ value: Double) -> Int {
        Int(max(-1e17, min(1e17, (value * 100).rounded())))
    }

    func beforeUnits() -> [Int] {
        before.indices.map { i in outsized[i].map { Self.units($0.0) } ?? Int(before[i]) }
    }

    func afterUnits() -> [Int] {
        after.indices.map { i in outsized[i].map { Self.units($0.1) } ?? Int(after[i]) }
    }

    func deltaUnits() -> [Int] {
        before.indices.map { i in
            outsized[i].map { Self.units(RoomSummary.roundedForJSON($0.1 - $0.0)) } ?? Int(after[i]) - Int(before[i])
        }
    }

    /// (after − before) / |before| in units of `1 / scale`, for the pairs with before ≠ 0.
    func relativeUnits(scale: Double) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(before.count)
        for i in before.indices {
            let (x, y) = outsized[i] ?? (Double(before[i]), Double(after[i]))
            guard x != 0 else { continue }
            out.append(Int(max(-1e17, min(1e17, ((y - x) / abs(x) * scale).rounded()))))
        }
        return out
    }
}
