/// Why one record was skipped: the stage, a stable code and a message. Becomes a
/// `RecordIssue` once the file and line are attached.
public struct RecordFailure: Error, Sendable, Equatable {
    /// The stage that failed.
    public var stage: RecordIssue.Stage
    /// Stable error code.
    public var code: IssueCode
    /// What is wrong.
    public var message: String
    /// The record id, when it was known before the failure.
    public var id: String?

    /// Creates a failure.
    public init(stage: RecordIssue.Stage, code: IssueCode, message: String, id: String? = nil) {
        self.stage = stage
        self.code = code
        self.message = message
        self.id = id
    }

    /// The issue for this failure at `file`:`line`.
    public func issue(file: String, line: Int?) -> RecordIssue {
        RecordIssue(file: file, line: line, id: id, stage: stage, code: code, message: message)
    }
}

extension RecordFailure {
    /// A line longer than the reader's limit (the reader keeps only its start).
    public static let lineTooLong = RecordFailure(
        stage: .read, code: .lineTooLong, message: "line is longer than the reader's limit")
}
