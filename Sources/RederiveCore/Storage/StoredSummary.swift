/// One summary row as `summary` and `summary_history` keep it, typed: what a derive or an
/// import writes, and what `rederive revert` reads and restores exactly. Engines read, bind
/// and list it through the column table (`SummaryColumn`: name, kind and key path), never by
/// position.
package struct StoredSummary: Sendable, Equatable {
    /// The summary version that derived it.
    package var summaryVersion: Int
    /// The deriver's fingerprint.
    package var fingerprint: String
    /// When it was derived (ISO 8601, UTC).
    package var derivedAt: String
    /// The run that wrote it (nil: from before runs were recorded).
    package var runID: Int64?
    /// `estimated_floor_area_sqm`.
    package var floorAreaSqm: Double
    /// `ceiling_height_m`.
    package var ceilingHeightM: Double
    /// `wall_count`.
    package var wallCount: Int
    /// `object_count`.
    package var objectCount: Int
    /// `door_count`.
    package var doorCount: Int
    /// `window_count`.
    package var windowCount: Int
    /// `opening_count`.
    package var openingCount: Int
    /// `volume_m3`.
    package var volumeM3: Double
    /// `floor_area_method`.
    package var floorAreaMethod: String
    /// The summary's JSON text.
    package var summaryJSON: String
}

extension StoredSummary {
    /// What a write stores: `summary` (as `json`) derived by `deriver`, written by run
    /// `runID` at `now` (ISO 8601, UTC).
    package init(summary s: RoomSummary, json: String, deriver: SummaryDeriver, runID: Int64, now: String) {
        summaryVersion = deriver.version
        fingerprint = deriver.fingerprint
        derivedAt = now
        self.runID = runID
        floorAreaSqm = s.estimatedFloorAreaSqm
        ceilingHeightM = s.ceilingHeightM
        wallCount = s.wallCount
        objectCount = s.objectCount
        doorCount = s.doorCount
        windowCount = s.windowCount
        openingCount = s.openingCount
        volumeM3 = s.volumeM3
        floorAreaMethod = s.floorAreaMethod.rawValue
        summaryJSON = json
    }

    /// A row read column by column: `read` gives each column's stored value (by name, in
    /// the engine's words); a value its column's kind cannot hold (NULL where the schema
    /// forbids it, text in a number column) is a damaged store.
    package init(reading read: (SummaryColumn) throws -> StoredValue) throws {
        self = .blank
        for column in SummaryColumn.allCases {
            let value = try read(column)
            let typed: Bool
            switch column.field {
            case .integer(let path):
                typed = value.integerValue.map { self[keyPath: path] = Int($0) } != nil
            case .optionalInteger(let path):
                typed = value == .null || value.integerValue != nil
                self[keyPath: path] = value.integerValue
            case .real(let path):
                typed = value.realValue.map { self[keyPath: path] = $0 } != nil
            case .text(let path):
                typed = value.textValue.map { self[keyPath: path] = $0 } != nil
            }
            guard typed else {
                throw RederiveError.io("a stored summary's \(column.name) holds \(value), not \(column.kind)")
            }
        }
    }

    /// Where `init(reading:)` starts (every column is then read).
    private static let blank = StoredSummary(
        summaryVersion: 0, fingerprint: "", derivedAt: "", runID: nil, floorAreaSqm: 0, ceilingHeightM: 0,
        wallCount: 0, objectCount: 0, doorCount: 0, windowCount: 0, openingCount: 0, volumeM3: 0,
        floorAreaMethod: "", summaryJSON: "")

    /// The value stored in `column`, engine-neutral.
    /// An exhaustive switch, not the column's key path: projecting a key path instantiates its
    /// generic metadata at run time, 1.5% of a derive when every record's upsert paid it.
    /// `StoredSummaryTests` checks that both give the same value for every column.
    package subscript(_ column: SummaryColumn) -> StoredValue {
        switch column {
        case .summaryVersion: .integer(Int64(summaryVersion))
        case .fingerprint: .text(fingerprint)
        case .derivedAt: .text(derivedAt)
        case .runID: runID.map { .integer($0) } ?? .null
        case .floorAreaSqm: .real(floorAreaSqm)
        case .ceilingHeightM: .real(ceilingHeightM)
        case .wallCount: .integer(Int64(wallCount))
        case .objectCount: .integer(Int64(objectCount))
        case .doorCount: .integer(Int64(doorCount))
        case .windowCount: .integer(Int64(windowCount))
        case .openingCount: .integer(Int64(openingCount))
        case .volumeM3: .real(volumeM3)
        case .floorAreaMethod: .text(floorAreaMethod)
        case .summaryJSON: .text(summaryJSON)
        }
    }

    /// The value stored in the column of `field`, through its key path.
    package subscript(_ field: SummaryColumn.Field) -> StoredValue {
        switch field {
        case .integer(let path): .integer(Int64(self[keyPath: path]))
        case .optionalInteger(let path): self[keyPath: path].map { .integer($0) } ?? .null
        case .real(let path): .real(self[keyPath: path])
        case .text(let path): .text(self[keyPath: path])
        }
    }

    /// Every column's value, in the table's order (the statements `copy-store` runs).
    package var storedValues: [StoredValue] { SummaryColumn.allCases.map { self[$0] } }

    /// The same summary, recorded as written by run `runID` (a revert writes what it restores:
    /// reverting the revert then finds its rows and redoes the run it undid).
    func writtenBy(_ runID: Int64) -> StoredSummary {
        var copy = self
        copy.runID = runID
        return copy
    }

    /// Same derived values, whoever derived them when: `other` is fresh for the version and
    /// fingerprint that derived this one (`SummaryFreshness`), with the same JSON.
    func sameSummary(as other: StoredSummary) -> Bool {
        SummaryFreshness.classify(
            version: other.summaryVersion, fingerprint: other.fingerprint, currentVersion: summaryVersion,
            currentFingerprint: fingerprint) == .fresh && summaryJSON == other.summaryJSON
    }
}
