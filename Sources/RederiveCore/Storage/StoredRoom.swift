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
    /// The stored summary's JSON as text, when given as text (the stores that read it as a
    /// string); nil otherwise (`storedJSON`).
    private var storedJSONText: String?
    /// The stored summary's JSON as its bytes in the page's buffer (SQLite), when read that way:
    /// a derive compares them with what it derived and makes no string of them.
    package var storedJSONBytes: PaddedBytes?
    /// Record format version of the export line (for the preview's breakdowns).
    package var formatVersion: Int = 0
    /// The stored `floor_area_method` column, when derived (for the preview's breakdowns).
    package var storedMethod: String?
    /// The run that wrote the stored summary, when known.
    package var storedRunID: Int64?
    /// The raw room's content hash (`record.raw_hash`, set by every import that changes the raw
    /// room): what binds a plan's spilled result to the input it was derived from (`DeriveSpill`).
    /// Empty when the selection does not read it (`DeriveSelection.readsRawHash`).
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
        (self.storedJSONText, self.formatVersion, self.storedMethod) = (storedJSON, formatVersion, storedMethod)
    }

    /// The raw room without its core model, as an array of its own.
    package var skeleton: [UInt8] {
        get { skeletonBytes.array }
        set { skeletonBytes = PaddedBytes(newValue) }
    }

    /// The stored summary's JSON, nil when the record has no summary (from its bytes as
    /// `String(cString:)` reads a text column: cut at a NUL byte, invalid UTF-8 repaired).
    package var storedJSON: String? {
        get {
            storedJSONText
                ?? storedJSONBytes.map { bytes in
                    bytes.withUnsafeBytes { text, _ in String(decoding: text.prefix { $0 != 0 }, as: UTF8.self) }
                }
        }
        set { (storedJSONText, storedJSONBytes) = (newValue, nil) }
    }

    /// Whether the record has a stored summary (its JSON).
    package var hasStoredJSON: Bool { storedJSONText != nil || storedJSONBytes != nil }

    /// Whether the stored summary's JSON is exactly `json` (false when there is none).
    package func storedJSONIs(_ json: [UInt8]) -> Bool {
        if let storedJSONText { return JSONText.sameBytes(storedJSONText, json) }
        return storedJSONBytes?.withUnsafeBytes { stored, _ in JSONText.sameBytes(stored, json) } ?? false
    }
}
