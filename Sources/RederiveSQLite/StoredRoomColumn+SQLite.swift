import RederiveCore

extension StoredRoomColumn {
    /// The SQL expression that yields the column on SQLite; a preview-only column is a
    /// constant when `preview` is false (`DeriveSelection.readsPreviewColumns`).
    func sqliteExpression(preview: Bool) -> String {
        switch self {
        // The run that wrote a summary and the raw room's hash are read always: a plan's check,
        // which shows nothing, needs the first, its apply the second (`DeriveSpill`).
        case .seq, .id, .skeleton, .summaryVersion, .fingerprint, .summaryJSON, .sourceFile, .sourceLine, .runID,
            .rawHash:
            storedColumn
        case .roomName: preview ? "substr(CAST(\(storedColumn) AS BLOB), 1, \(PreviewText.readBytes))" : "''"
        case .roomNameUTF8: "NULL"  // SQLite text holds NUL: no such column
        case .formatVersion: preview ? storedColumn : "0"
        case .floorAreaMethod: preview ? storedColumn : "NULL"
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
