/// Which open failures `StoreInspector.openFailures(matching:)` returns; nil fields match everything.
public struct FailureFilter: Sendable, Equatable {
    /// Only this stage (`read`, `parse`, `upgrade`, `decode`, `derive`, `store`).
    public var stage: String?
    /// Only this code, e.g. `invalid_json`.
    public var code: String?
    /// Only this export file: the path as recorded, or its last path components
    /// (`rooms-v2.jsonl` matches `Fixtures/exports/rooms-v2.jsonl`).
    public var file: String?
    /// Only failures last seen by this run.
    public var runID: Int64?
    /// Only this record id.
    public var recordID: String?
    /// Only acknowledged failures (`true`), only unacknowledged ones (`false`), or both (nil).
    public var acknowledged: Bool?
    /// Only failures first seen at or after this time (ISO 8601 UTC, as the ledger keeps it).
    public var firstSeenSince: String?

    /// Creates a filter.
    public init(
        stage: String? = nil, code: String? = nil, file: String? = nil, runID: Int64? = nil,
        recordID: String? = nil, acknowledged: Bool? = nil, firstSeenSince: String? = nil
    ) {
        self.stage = stage
        self.code = code
        self.file = file
        self.runID = runID
        self.recordID = recordID
        self.acknowledged = acknowledged
        self.firstSeenSince = firstSeenSince
    }

    /// Whether it names failures (stage, code, file, run or record), as `failures --ack` needs.
    public var selectsSome: Bool { stage != nil || code != nil || file != nil || runID != nil || recordID != nil }
}
