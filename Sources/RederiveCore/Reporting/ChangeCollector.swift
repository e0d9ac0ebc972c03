import Foundation

/// Accumulates a `ChangeReport` one record at a time (stored summary vs new summary).
///
/// Memory: the statistics are exact, so every changed numeric value is kept, but compactly:
/// values are compared at the JSON's 2 decimals, so each is held as an `Int32` count of
/// hundredths (before and after: 8 bytes per changed value; a stored value beyond
/// ±20,000,000, which no room has, is kept aside as a `Double`). A million changed records
/// changing all 12 numeric fields hold 96 MB; the sorts in `report()` add about 50 MB, one
/// field at a time. Everything else is bounded: the room names, source files and messages
/// kept are cut to `PreviewText.limit` scalars, the top lists and the id lists are trimmed
/// as they grow, the breakdowns hold one row per group, and the full list of changed
/// records is streamed to a temporary `changes.jsonl.zst` (see `ChangeListFile`).
/// Not thread-safe: feed it from one thread.
public final class ChangeCollector {
    /// Failed and new records listed individually (the counts cover all of them).
    public static let listLimit = 100
    /// Failed records listed individually (same as `listLimit`).
    public static var failureListLimit: Int { listLimit }
    /// The group name of records with no stored summary, in the breakdowns.
    public static let noSummary = "(no summary)"
    /// The group name of a value the caller did not give.
    public static let unknown = "(unknown)"
    /// The transition side of a key absent from a summary.
    public static let missing = "(missing)"

    private let summaryVersion: Int
    private let fingerprint: String?
    private let topCount: Int
    private var totals: ChangeReport
    private var accumulators: [String: FieldAccumulator] = [:]
    private var top: TopList<ChangeReport.RecordChange>
    private var failures: [ChangeReport.Failure] = []
    private var newRecords: [ChangeReport.NewRecord] = []
    private var byMethod: [String: ChangeReport.BreakdownRow] = [:]
    private var byFormat: [String: ChangeReport.BreakdownRow] = [:]
    private var byFile: [String: ChangeReport.BreakdownRow] = [:]
    private var byStoredVersion: [String: ChangeReport.BreakdownRow] = [:]
    private var oldestStoredVersion: Int?
    private let changeList: ChangeListFile?
    private let thumbnails: ChangeThumbnails

    /// Creates a collector for a derivation writing `summaryVersion` and `fingerprint`
    /// (a nil fingerprint is not compared), keeping the `topCount` largest changes per list.
    /// The changed records are streamed to a temporary list in `changeListDirectory`
    /// (default: the system's temporary directory); nil keeps no list.
    public init(
        summaryVersion: Int = SummaryDeriver.currentVersion, fingerprint: String? = nil, topCount: Int = 20,
        changeListDirectory: String? = NSTemporaryDirectory()
    ) {
        self.summaryVersion = summaryVersion
        self.fingerprint = fingerprint
        self.topCount = max(0, topCount)
        totals = ChangeReport(summaryVersion: summaryVersion, fingerprint: fingerprint)
        top = TopList(limit: self.topCount) { $0.floorAreaDelta.map(abs) ?? -1 }
        changeList = changeListDirectory.map(ChangeListFile.init(directory:))
        thumbnails = ChangeThumbnails(
            limit: Swift.min(self.topCount, ChangeThumbnails.defaultLimit),
            deriver: SummaryDeriver(version: summaryVersion))
        for key in RoomSummary.Key.allCases {
            accumulators[key.rawValue] = FieldAccumulator(key: key.rawValue, kind: key.kind, topCount: self.topCount)
        }
    }

    /// Adds one record that derives: its stored summary (nil when never derived) and the new one.
    ///
    /// The comparison is between the parsed stored JSON and the parsed `newJSON` (what a derive
    /// would store), numbers rounded to 2 decimals; `newSummary` is that same summary, typed.
    /// `sourceFile`, `formatVersion` and `storedMethod` (the stored `floor_area_method`
    /// column; default: the stored JSON's) feed the breakdowns. `rawRoom` (the room the new
    /// summary was derived from) is drawn when the record is among a geometric field's
    /// largest changes (`ChangeThumbnails`).
    public func add(
        id: String, roomName: String?, storedJSON: String?, storedVersion: Int?,
        storedFingerprint: String? = nil, newSummary: RoomSummary, newJSON: [UInt8],
        sourceFile: String? = nil, formatVersion: Int? = nil, storedMethod: String? = nil,
        rawRoom: [UInt8]? = nil
    ) {
        // Kept text is cut (`PreviewText`): memory independent of the fields' sizes.
        let roomName = roomName.map(PreviewText.truncated), sourceFile = sourceFile.map(PreviewText.truncated)
        let storedMethod = storedMethod.map(PreviewText.truncated)
        totals.examined += 1
        guard let storedJSON else {
            totals.neverDerived += 1
            let method = newSummary.floorAreaMethod.rawValue
            totals.newRecordsByMethod[method, default: 0] += 1
            newRecords.append(ChangeReport.NewRecord(id: id, roomName: roomName, method: method))
            if newRecords.count >= Self.listLimit * 2 { trimNewRecords() }
            tally(sourceFile: sourceFile, formatVersion: formatVersion, storedVersion: nil, method: Self.noSummary) {
                $0.neverDerived += 1
            }
            return
        }
        if let storedVersion { oldestStoredVersion = min(oldestStoredVersion ?? storedVersion, storedVersion) }
        let methodKey = RoomSummary.Key.floorAreaMethod.rawValue
        if JSONText.sameBytes(storedJSON, newJSON) {
            // Byte-identical (a version-only backfill, the common case): no field changed, and
            // nothing is parsed, which is otherwise most of a preview's time.
            let method =
                storedMethod ?? SummaryValue.parseObject(Data(storedJSON.utf8))?[methodKey]?.displayText ?? Self.missing
            return addUnchanged(
                identical: true, storedVersion: storedVersion, storedFingerprint: storedFingerprint,
                sourceFile: sourceFile, formatVersion: formatVersion, method: method)
        }
        let before = SummaryValue.parseObject(Data(storedJSON.utf8))
        if before == nil { totals.storedUnreadable += 1 }
        // Our own JSON always parses; fall back to an empty object rather than trap.
        let after = SummaryValue.parseObject(Data(newJSON)) ?? [:]
        let old = before ?? [:]

        var changedKeys: [String] = []
        var listed: [String] = []
        var drawn: [(key: String, before: Double, after: Double)] = []
        for key in Self.changedKeys(before: before, after: after) {
            let b = old[key], a = after[key]
            changedKeys.append(key)
            // Mutated in place: a copy taken out of the dictionary would share the value
            // arrays, and every append would then copy them whole (quadratic in the records).
            accumulators[key, default: FieldAccumulator(key: key, kind: .structured, topCount: topCount)]
                .add(id: id, roomName: roomName, before: b, after: a)
            if changeList != nil { listed.append(Self.changeEntry(key: key, before: b, after: a)) }
            if rawRoom != nil, ChangeThumbnails.draws(key), let x = b?.number, let y = a?.number {
                drawn.append((key, x, y))
            }
        }
        let method = storedMethod ?? old[methodKey]?.displayText ?? Self.missing

        if changedKeys.isEmpty {
            return addUnchanged(
                identical: false, storedVersion: storedVersion, storedFingerprint: storedFingerprint,
                sourceFile: sourceFile, formatVersion: formatVersion, method: method)
        }
        totals.wouldChange += 1
        tally(sourceFile: sourceFile, formatVersion: formatVersion, storedVersion: storedVersion, method: method) {
            $0.changed += 1
            for key in changedKeys { $0.fieldsChanged[key, default: 0] += 1 }
        }
        changeList?.append(
            Self.changeLine(
                id: id, roomName: roomName, sourceFile: sourceFile,
                formatVersion: formatVersion, storedVersion: storedVersion, entries: listed))
        if let rawRoom, !drawn.isEmpty {
            thumbnails.add(id: id, roomName: roomName, rawRoom: rawRoom, changes: drawn)
        }
        guard topCount > 0 else { return }
        let areaKey = RoomSummary.Key.estimatedFloorAreaSqm.rawValue
        var change = ChangeReport.RecordChange(
            id: id, roomName: roomName, floorAreaBefore: old[areaKey]?.number, floorAreaAfter: after[areaKey]?.number,
            floorAreaDelta: nil, methodBefore: old[methodKey]?.displayText, methodAfter: after[methodKey]?.displayText,
            changedFields: changedKeys)
        if let x = change.floorAreaBefore, let y = change.floorAreaAfter {
            change.floorAreaDelta = RoomSummary.roundedForJSON(y - x)
        }
        top.add(change, id: id)
    }

    /// Counts a record whose summary would not change (its stored JSON byte-`identical` to the
    /// new one, or equal once parsed).
    private func addUnchanged(
        identical: Bool, storedVersion: Int?, storedFingerprint: String?, sourceFile: String?,
        formatVersion: Int?, method: String
    ) {
        totals.unchanged += 1
        // Rewritten all the same unless the stored summary is fresh (the one rule a derive
        // follows too, `SummaryFreshness`) and byte-identical.
        let freshness = SummaryFreshness.classify(
            version: storedVersion, fingerprint: storedFingerprint, currentVersion: summaryVersion,
            currentFingerprint: fingerprint)
        if freshness != .fresh || !identical { totals.versionOnly += 1 }
        tally(sourceFile: sourceFile, formatVersion: formatVersion, storedVersion: storedVersion, method: method) {
            $0.unchanged += 1
        }
    }

    /// Adds one record whose decoding or derivation would fail; the optional values feed
    /// the breakdowns as in `add`.
    public func addFailure(
        id: String, roomName: String?, stage: String, code: String, message: String,
        sourceFile: String? = nil, formatVersion: Int? = nil, storedVersion: Int? = nil,
        storedMethod: String? = nil
    ) {
        let roomName = roomName.map(PreviewText.truncated), message = PreviewText.truncated(message)
        let sourceFile = sourceFile.map(PreviewText.truncated), storedMethod = storedMethod.map(PreviewText.truncated)
        totals.examined += 1
        totals.wouldFail += 1
        totals.failuresByCode[code, default: 0] += 1
        failures.append(ChangeReport.Failure(id: id, roomName: roomName, stage: stage, code: code, message: message))
        if failures.count >= Self.listLimit * 2 { trimFailures() }
        tally(
            sourceFile: sourceFile, formatVersion: formatVersion, storedVersion: storedVersion,
            method: storedMethod ?? (storedVersion == nil ? Self.noSummary : Self.unknown)
        ) { $0.wouldFail += 1 }
    }

    /// The keys whose values differ between a stored summary (`before`, nil when it is not a
    /// JSON object: then every key) and a new one, numbers compared at 2 decimals: the spec's
    /// keys in its order, then any other sorted. What the preview counts per field, and what
    /// a plan's apply counts again to check the plan's `fieldChanges` (`ChangeTally`).
    static func changedKeys(before: [String: SummaryValue]?, after: [String: SummaryValue]) -> [String] {
        let old = before ?? [:]
        var keys = RoomSummary.Key.allCases.map(\.rawValue)
        keys += Set(old.keys).union(after.keys).subtracting(keys).sorted()
        return keys.filter { before == nil || old[$0] != after[$0] }
    }

    /// `changedKeys(before:after:)` of a stored summary's text and a new summary's JSON.
    static func changedKeys(stored: String, new: [UInt8]) -> [String] {
        changedKeys(
            before: SummaryValue.parseObject(Data(stored.utf8)), after: SummaryValue.parseObject(Data(new)) ?? [:])
    }

    /// The report. It also ends the streamed change list: records added afterwards are
    /// still counted, but no longer listed.
    public func report() -> ChangeReport {
        trimFailures()
        trimNewRecords()
        changeList?.finish()
        var out = totals
        out.largestChanges = top.sorted()
        out.failures = failures
        out.newRecords = newRecords
        out.changeList = changeList
        var keys = RoomSummary.Key.allCases.map(\.rawValue)
        keys += Set(accumulators.keys).subtracting(keys).sorted()
        out.fields = keys.map {
            var field = accumulators[$0]!.fieldChange()
            field.thumbnails = thumbnails.list($0)
            return field
        }

        let byName: (ChangeReport.BreakdownRow, ChangeReport.BreakdownRow) -> Bool = { a, b in
            // Named groups first, the placeholders ("(no summary)", "(unknown)") last.
            (a.value.hasPrefix("(") ? 1 : 0, a.value) < (b.value.hasPrefix("(") ? 1 : 0, b.value)
        }
        let byNumber: (ChangeReport.BreakdownRow, ChangeReport.BreakdownRow) -> Bool = { a, b in
            let x = Int(a.value.drop { !$0.isNumber }) ?? Int.max, y = Int(b.value.drop { !$0.isNumber }) ?? Int.max
            return (x, a.value) < (y, b.value)
        }
        out.byFloorAreaMethod = byMethod.values.sorted(by: byName)
        out.bySourceFile = byFile.values.sorted(by: byName)
        out.byFormatVersion = byFormat.values.sorted(by: byNumber)
        out.byStoredVersion = byStoredVersion.values.sorted(by: byNumber)
        if let oldest = oldestStoredVersion, oldest < summaryVersion {
            // The versions between that have a note, and the new one (noted or not): the simulated
            // fix's reserved number is far above the real ones, and the numbers between are none.
            let noted = SummaryDeriver.versionNotes.keys.filter { $0 > oldest && $0 < summaryVersion }
            out.versionNotes = (noted.sorted() + [summaryVersion]).map {
                ChangeReport.VersionNote(version: $0, note: SummaryDeriver.versionNotes[$0])
            }
        }
        return out
    }

    // MARK: - Breakdowns and lists

    private func tally(
        sourceFile: String?, formatVersion: Int?, storedVersion: Int?, method: String,
        _ update: (inout ChangeReport.BreakdownRow) -> Void
    ) {
        func bump(_ table: inout [String: ChangeReport.BreakdownRow], _ value: String) {
            var row = table[value] ?? ChangeReport.BreakdownRow(value: value)
            row.examined += 1
            update(&row)
            table[value] = row
        }
        bump(&byMethod, method)
        bump(&byFormat, formatVersion.map(String.init) ?? Self.unknown)
        bump(&byFile, sourceFile ?? Self.unknown)
        let version = method == Self.noSummary ? Self.noSummary : storedVersion.map { "v\($0)" } ?? Self.unknown
        bump(&byStoredVersion, version)
    }

    private func trimFailures() {
        failures.sort { $0.id < $1.id }
        if failures.count > Self.listLimit { failures.removeLast(failures.count - Self.listLimit) }
    }

    private func trimNewRecords() {
        newRecords.sort { $0.id < $1.id }
        if newRecords.count > Self.listLimit { newRecords.removeLast(newRecords.count - Self.listLimit) }
    }

    /// `"key":{"before":..,"after":..[,"delta":..]}` (a side absent from its summary is left out).
    private static func changeEntry(key: String, before: SummaryValue?, after: SummaryValue?) -> String {
        var parts: [String] = []
        if let before { parts.append("\"before\":" + before.jsonText) }
        if let after { parts.append("\"after\":" + after.jsonText) }
        if let x = before?.number, let y = after?.number {
            parts.append("\"delta\":" + JSONText.number(RoomSummary.roundedForJSON(y - x)))
        }
        return JSONText.string(key) + ":{" + parts.joined(separator: ",") + "}"
    }

    private static func changeLine(
        id: String, roomName: String?, sourceFile: String?, formatVersion: Int?,
        storedVersion: Int?, entries: [String]
    ) -> String {
        "{\"id\":" + JSONText.string(id)
            + ",\"room_name\":" + (roomName.map(JSONText.string) ?? "null")
            + ",\"source_file\":" + (sourceFile.map(JSONText.string) ?? "null")
            + ",\"format_version\":" + (formatVersion.map(String.init) ?? "null")
            + ",\"stored_summary_version\":" + (storedVersion.map(String.init) ?? "null")
            + ",\"changes\":{" + entries.joined(separator: ",") + "}}"
    }
}

/// The `limit` entries with the largest score, ties by id, trimmed as it grows.
struct TopList<Entry> {
    private(set) var entries: [(entry: Entry, id: String, score: Double)] = []
    let limit: Int
    let score: (Entry) -> Double

    init(limit: Int, score: @escaping (Entry) -> Double) {
        self.limit = limit
        self.score = score
    }

    mutating func add(_ entry: Entry, id: String) {
        guard limit > 0 else { return }
        entries.append((entry, id, score(entry)))
        if entries.count >= limit * 2 + 16 { trim() }
    }

    mutating func trim() {
        entries.sort { $0.score != $1.score ? $0.score > $1.score : $0.id < $1.id }
        if entries.count > limit { entries.removeLast(entries.count - limit) }
    }

    func sorted() -> [Entry] {
        var copy = self
        copy.trim()
        return copy.entries.map(\.entry)
    }
}
