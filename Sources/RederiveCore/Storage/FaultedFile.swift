/// An export file whose reading ended in a file fault (truncated or damaged frame, an
/// unreadable file), kept by content hash: the same bytes are not read again by a nightly
/// import (`--skip-imported-files`) until `--retry-files`. New bytes are a new file.
public struct FaultedFile: Sendable, Equatable {
    /// The SHA-256 (hex) of the bytes that faulted, as the reader read them
    /// (`ExportReader.contentHash`; `FileHasher` computes the same digest of a file by name).
    public var contentHash: String
    /// The path it was read from.
    public var path: String
    /// Its size in bytes.
    public var bytes: Int64
    /// The fault's issue code (`truncated_frame`, `damaged_frame`, `unreadable_file`...).
    public var code: String
    /// The fault's message.
    public var message: String
    /// The run that read it.
    public var runID: Int64

    /// Creates a record of a faulted file.
    public init(contentHash: String, path: String, bytes: Int64, code: String, message: String, runID: Int64) {
        self.contentHash = contentHash
        self.path = path
        self.bytes = bytes
        self.code = code
        self.message = message
        self.runID = runID
    }
}
