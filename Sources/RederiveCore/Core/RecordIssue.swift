/// One record (or file) that could not be processed: data for the error report, never an
/// exception. Collected per run, sorted by file then line, written as JSON Lines.
public struct RecordIssue: Sendable, Equatable, Hashable {
    /// The pipeline stage where a record can fail.
    public enum Stage: String, Sendable, Codable, CaseIterable {
        /// Reading the file: unreadable file, damaged or truncated zstd frame.
        case read
        /// Parsing the line as a record of its format version.
        case parse
        /// Upgrading the record to the newest format (unknown version, duplicate id).
        case upgrade
        /// Decoding the raw room.
        case decode
        /// Deriving the summary.
        case derive
        /// Writing to the store.
        case store
    }

    /// Source file path as given on the command line (or the store's record origin).
    public var file: String
    /// 1-based line number; nil for a file-level fault.
    public var line: Int?
    /// Byte offset in the file where reading stopped (file-level faults only).
    public var byteOffset: Int64?
    /// Record id, when known.
    public var id: String?
    /// Stage that failed.
    public var stage: Stage
    /// Stable machine-readable error code, e.g. `invalid_json`.
    public var code: IssueCode
    /// What is wrong, for people.
    public var message: String

    /// Creates an issue.
    public init(
        file: String, line: Int?, byteOffset: Int64? = nil, id: String? = nil,
        stage: Stage, code: IssueCode, message: String
    ) {
        self.file = file
        self.line = line
        self.byteOffset = byteOffset
        self.id = id
        self.stage = stage
        self.code = code
        self.message = message
    }

    /// Report order: by file, then line (file-level faults, with no line, after the lines
    /// of their file), then code.
    public static func reportOrder(_ a: RecordIssue, _ b: RecordIssue) -> Bool {
        if a.file != b.file { return a.file < b.file }
        let la = a.line ?? Int.max, lb = b.line ?? Int.max
        if la != lb { return la < lb }
        return a.code < b.code
    }
}
