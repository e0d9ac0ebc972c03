/// One entry of an import batch, in file order.
public enum ImportItem: Sendable {
    /// A good record.
    case row(ImportRow)
    /// A skipped record or a file fault.
    case issue(RecordIssue)
    /// A file fully read (registered by the SHA-256 of the bytes read when `contentHash` is set).
    case fileDone(path: String, contentHash: String?, bytes: Int64, records: Int)
}
