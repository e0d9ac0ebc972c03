/// A stored record to derive: its key, id, room name, raw room (without coreModel) and current summary.
package struct StoredRoom: Sendable {
    package var seq: Int64
    package var id: String
    /// As previews keep it (`PreviewText`): the stores read no more than that of it.
    package var roomName: String
    package var sourceFile: String
    package var sourceLine: Int
    /// The raw room without its core model, padded for the parser (on SQLite, a span of a buffer
    /// the batch's rooms share).
    package var skeletonBytes: PaddedBytes
    package var storedVersion: Int?
    package var storedFingerprint: String?
    package var storedJSON: String?
    /// Record format version of the export line (for the preview's breakdowns).
    package var formatVersion: Int = 0
    /// The stored `floor_area_method` column, when derived (for the preview's breakdowns).
    package var storedMethod: String?
    /// The run that wrote the stored summary, when known.
    package var storedRunID: Int64?
    /// The raw room's content hash (`record.raw_hash`, set by every import that changes the raw
    /// room): what binds a plan's spilled result to the input it was derived from (`DeriveSpill`).
    package var rawHash: String = ""

    /// Creates a stored room.
    package init(
        seq: Int64, id: String, roomName: String, sourceFile: String, sourceLine: Int, skeleton: [UInt8],
        storedVersion: Int?, storedFingerprint: String?, storedJSON: String?, formatVersion: Int = 0,
        storedMethod: String? = nil, storedRunID: Int64? = nil, rawHash: String = ""
    ) {
        (self.storedRunID, self.rawHash) = (storedRunID, rawHash)
        (self.seq, self.id, self.roomName, self.sourceFile, self.sourceLine) = (
            seq, id, roomName, sourceFile, sourceLine
        )
        (self.skeletonBytes, self.storedVersion, self.storedFingerprint) = (
            PaddedBytes(skeleton), storedVersion, storedFingerprint
        )
        (self.storedJSON, self.formatVersion, self.storedMethod) = (storedJSON, formatVersion, storedMethod)
    }

    /// The raw room without its core model, as an array of its own.
    package var skeleton: [UInt8] {
        get { skeletonBytes.array }
        set { skeletonBytes = PaddedBytes(newValue) }
    }
}
