/// A record ready to be stored: upgraded, derived, its raw room split for storage.
public struct ImportRow: Sendable {
    /// Source file and line.
    public var file: String
    /// 1-based line.
    public var line: Int
    /// The record in the current format.
    public var record: ExportRecordV3
    /// The format version it was written in.
    public var sourceFormatVersion: Int
    /// The raw room, split for storage.
    public var parts: RawRoomParts
    /// Content hash of the raw room bytes (hex).
    public var rawHash: String
    /// Size of the raw room in bytes.
    public var rawSize: Int
    /// The derived summary and its JSON.
    public var summary: RoomSummary
    /// The summary's JSON text.
    public var summaryJSON: [UInt8]
}
