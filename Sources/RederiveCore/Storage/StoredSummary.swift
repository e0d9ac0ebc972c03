/// One summary row as `summary` and `summary_history` keep it, typed: what a derive or an
/// import writes, and what `rederive revert` reads and restores exactly. Engines read, bind
/// and list it through the column table (`SummaryColumn`: name, kind and place), never by
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
    /// The stored summary fields' values, one per `SummaryColumn.storedFields`, in that order.
    package var fieldValues: [StoredValue]
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
        fieldValues = SummaryColumn.storedFields.map { $0.storedValue(in: s) }
        summaryJSON = json
    }

    /// A row read column by column: `read` gives each column's stored value (by name, in
    /// the engine's words); a value its column's kind cannot hold (NULL where the schema
    /// forbids it, text in a number column) is a damaged store.
    package init(reading read: (SummaryColumn) throws -> StoredValue) throws {
        self.init(
            summaryVersion: 0, fingerprint: "", derivedAt: "", runID: nil,
            fieldValues: Array(repeating: .null, count: SummaryColumn.storedFields.count), summaryJSON: "")
        for column in SummaryColumn.allCases {
            let value = try read(column)
            let typed: StoredValue? =
                switch column.kind {
                case .integer where column.isNullable && value == .null: .null
                case .integer: value.integerValue.map { .integer($0) }
                case .real: value.realValue.map { .real($0) }
                case .text: value.textValue.map { .text($0) }
                }
            guard let typed else {
                throw RederiveError.io("a stored summary's \(column.name) holds \(value), not \(column.kind)")
            }
            self[column] = typed
        }
    }

    /// The value stored in `column`, engine-neutral (set: a value of the column's kind).
    package private(set) subscript(_ column: SummaryColumn) -> StoredValue {
        get {
            switch column.source {
            case .summaryVersion: .integer(Int64(summaryVersion))
            case .fingerprint: .text(fingerprint)
            case .derivedAt: .text(derivedAt)
            case .runID: runID.map { .integer($0) } ?? .null
            case .summaryJSON: .text(summaryJSON)
            case .field(let i): fieldValues[i]
            }
        }
        set {
            switch column.source {
            case .summaryVersion: summaryVersion = Int(newValue.integerValue ?? 0)
            case .fingerprint: fingerprint = newValue.textValue ?? ""
            case .derivedAt: derivedAt = newValue.textValue ?? ""
            case .runID: runID = newValue.integerValue
            case .summaryJSON: summaryJSON = newValue.textValue ?? ""
            case .field(let i): fieldValues[i] = newValue
            }
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

extension RoomSummary.Field {
    /// Its value in `summary` as its column stores it.
    func storedValue(in summary: RoomSummary) -> StoredValue {
        switch value {
        case .count(let read): .integer(Int64(read(summary)))
        case .float(let read): .real(read(summary))
        case .string(let read): .text(read(summary))
        case .structured: preconditionFailure("a structured summary field is stored only in the JSON")
        }
    }
}
