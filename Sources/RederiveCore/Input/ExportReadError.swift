/// A fault that stops reading one export file. The records read before it are kept and
/// the run goes on with the next file.
public struct ExportReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable error code: `unsupported_file_type`, `file_unreadable`, `damaged_frame`, `truncated_frame`.
    public var code: IssueCode
    /// The file.
    public var path: String
    /// Byte offset in the (compressed) file where reading stopped.
    public var byteOffset: Int64
    /// What happened.
    public var message: String

    /// Creates an error.
    public init(code: IssueCode, path: String, byteOffset: Int64, message: String) {
        self.code = code
        self.path = path
        self.byteOffset = byteOffset
        self.message = message
    }

    /// `path: message (at byte N)`.
    public var description: String { "\(path): \(message) (at byte \(byteOffset))" }
}
