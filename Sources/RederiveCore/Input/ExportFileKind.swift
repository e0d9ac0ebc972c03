/// How an export file is encoded, decided by its name.
public enum ExportFileKind: Sendable, Equatable {
    /// `*.jsonl.zst`: JSON Lines compressed with zstd (one or more frames).
    case zstd
    /// `*.jsonl`: plain JSON Lines.
    case plain

    /// The kind for `path`, or nil for a name that is not an export.
    public init?(path: String) {
        if path.hasSuffix(".jsonl.zst") {
            self = .zstd
        } else if path.hasSuffix(".jsonl") {
            self = .plain
        } else {
            return nil
        }
    }
}
