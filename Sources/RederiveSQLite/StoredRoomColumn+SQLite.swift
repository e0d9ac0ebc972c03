import RederiveCore

extension StoredRoomColumn {
    /// The SQL expression that yields the column on SQLite; a preview-only column is a
    /// constant when `preview` is false (`DeriveSelection.readsPreviewColumns`).
    func sqliteExpression(preview: Bool) -> String {
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
        case .roomNameUTF8: "NULL"  // SQLite text holds NUL
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
        SELECT \(selectList { $0.sqliteExpression(preview: preview) })
        FROM record JOIN raw_room ON raw_room.record_seq = record.seq
        LEFT JOIN summary ON summary.record_seq = record.seq
        """
    }
}
