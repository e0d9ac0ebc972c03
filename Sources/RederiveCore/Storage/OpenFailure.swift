/// One open entry of the store's failure ledger (`failure` table): a record, line or file
/// that could not be processed and has not gone through since.
public struct OpenFailure: Sendable, Equatable {
    /// The ledger key: `id:<id>`, `line:<file>:<line>` or `file:<file>`.
    public var recordKey: String
    /// Record id, when it was known.
    public var recordID: String?
    /// The export file the record (or fault) came from, as given on the command line.
    public var file: String?
    /// 1-based line in `file`; nil for a file-level fault.
    public var line: Int?
    /// Stage that failed (`read`, `parse`, `upgrade`, `decode`, `derive`, `store`).
    public var stage: String
    /// Stable machine-readable code, e.g. `invalid_json`.
    public var code: String
    /// What is wrong, for people.
    public var message: String
    /// The run that last saw it.
    public var runID: Int64
    /// When it was first seen with this code (ISO 8601 UTC).
    public var firstSeenAt: String
    /// When it was last seen (ISO 8601 UTC).
    public var lastSeenAt: String
    /// When an operator acknowledged it (`rederive failures --ack`; ISO 8601 UTC); nil: not acknowledged.
    public var acknowledgedAt: String?

    /// Creates an entry.
    public init(
        recordKey: String, recordID: String?, file: String?, line: Int?, stage: String, code: String,
        message: String, runID: Int64, firstSeenAt: String, lastSeenAt: String, acknowledgedAt: String? = nil
    ) {
        self.recordKey = recordKey
        self.recordID = recordID
        self.file = file
        self.line = line
        self.stage = stage
        self.code = code
        self.message = message
        self.runID = runID
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
        self.acknowledgedAt = acknowledgedAt
    }

    /// `file:line` (or just the file, or `-`), where the original line can be found.
    public var location: String {
        guard let file else { return "-" }
        return line.map { "\(file):\($0)" } ?? file
    }
}
