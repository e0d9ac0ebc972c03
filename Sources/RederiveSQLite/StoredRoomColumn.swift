import RederiveCore

/// The columns a derive reads of each stored room, in the order of the SELECT they generate:
/// rows are read by position, as hashing twelve column names per record cost a derive ~2%.
enum StoredRoomColumn: Int, CaseIterable {
    case seq, id, skeleton, summaryVersion, fingerprint, summaryJSON, sourceFile, sourceLine, roomName
    case formatVersion, floorAreaMethod, runID

    /// The SQL expression that yields the column; a preview-only column is a constant when
    /// `preview` is false (`DeriveSelection.readsPreviewColumns`).
    func expression(preview: Bool) -> String {
        switch self {
        case .seq: "record.seq"
        case .id: "record.id"
        case .skeleton: "raw_room.skeleton"
        case .summaryVersion: "summary.summary_version"
        case .fingerprint: "summary.fingerprint"
        case .summaryJSON: "summary.summary_json"
        case .sourceFile: "record.source_file"
        case .sourceLine: "record.source_line"
        case .roomName: preview ? "substr(CAST(record.room_name AS BLOB), 1, \(PreviewText.readBytes))" : "''"
        case .formatVersion: preview ? "record.source_format_version" : "0"
        case .floorAreaMethod: preview ? "summary.floor_area_method" : "NULL"
        case .runID: preview ? "summary.run_id" : "NULL"
        }
    }

    /// The stored rooms' SELECT, before its keyset condition.
    static func select(preview: Bool) -> String { preview ? previewSelect : runSelect }

    private static let previewSelect = selectText(preview: true)
    private static let runSelect = selectText(preview: false)

    private static func selectText(preview: Bool) -> String {
        """
        SELECT \(allCases.map { $0.expression(preview: preview) }.joined(separator: ", "))
        FROM record JOIN raw_room ON raw_room.record_seq = record.seq
        LEFT JOIN summary ON summary.record_seq = record.seq
        """
    }
}
