/// One stored summary to export: the record's identity and its summary row.
package struct ExportRow: Sendable {
    package var seq: Int64
    package var id: String
    package var roomName: String
    package var capturedAt: String
    package var summaryVersion: Int
    package var fingerprint: String
    package var derivedAt: String
    package var summaryJSON: String

    /// Creates a row.
    package init(
        seq: Int64, id: String, roomName: String, capturedAt: String, summaryVersion: Int, fingerprint: String,
        derivedAt: String, summaryJSON: String
    ) {
        (self.seq, self.id, self.roomName, self.capturedAt) = (seq, id, roomName, capturedAt)
        (self.summaryVersion, self.fingerprint, self.derivedAt, self.summaryJSON) =
            (summaryVersion, fingerprint, derivedAt, summaryJSON)
    }
}
