/// One stored record as `rederive copy-store` reads it from the store it copies: what the
/// record kept of its export (identity, source file and line, the summary the app wrote)
/// and its raw room, split as stored. Nothing derived: the copy derives its summary anew.
package struct CopyRow: Sendable {
    /// The record's key in the store it was read from (the keyset cursor).
    package var seq: Int64
    /// Canonical (uppercase) UUID string.
    package var id: String
    /// The room's name.
    package var roomName: String
    /// ISO 8601 capture time.
    package var capturedAt: String
    /// The format version the record was written in.
    package var sourceFormatVersion: Int
    /// The export file it was imported from.
    package var sourceFile: String
    /// Its 1-based line there.
    package var sourceLine: Int
    /// The summary JSON the app wrote, if the record kept one.
    package var sourceSummary: String?
    /// The algorithm version of `sourceSummary` (0 = unknown).
    package var sourceSummaryVersion: Int
    /// The raw room, split as stored (`joined()` gives it byte-exact).
    package var parts: RawRoomParts

    /// Creates a row.
    package init(
        seq: Int64, id: String, roomName: String, capturedAt: String, sourceFormatVersion: Int, sourceFile: String,
        sourceLine: Int, sourceSummary: String?, sourceSummaryVersion: Int, parts: RawRoomParts
    ) {
        (self.seq, self.id, self.roomName, self.capturedAt) = (seq, id, roomName, capturedAt)
        (self.sourceFormatVersion, self.sourceFile, self.sourceLine) = (sourceFormatVersion, sourceFile, sourceLine)
        (self.sourceSummary, self.sourceSummaryVersion, self.parts) = (sourceSummary, sourceSummaryVersion, parts)
    }
}
