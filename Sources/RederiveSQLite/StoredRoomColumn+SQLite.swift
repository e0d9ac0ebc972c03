import RederiveCore

extension StoredRoomColumn {
    /// The SQL expression that yields the column on SQLite; a preview-only column is a
    /// constant when `preview` is false (`DeriveSelection.readsPreviewColumns`), the raw room's
    /// hash an empty text when `rawHash` is false (`DeriveSelection.readsRawHash`).
    func sqliteExpression(preview: Bool, rawHash: Bool) -> String {
        switch self {
        // The run that wrote a summary is read always: a plan's check, which shows nothing, needs it.
        case .seq, .id, .skeleton, .summaryVersion, .fingerprint, .summaryJSON, .sourceFile, .sourceLine, .runID:
            storedColumn
        case .rawHash: rawHash ? storedColumn : "''"
        case .roomName: preview ? "substr(CAST(\(storedColumn) AS BLOB), 1, \(PreviewText.readBytes))" : "''"
        case .roomNameUTF8: "NULL"  // SQLite text holds NUL: no such column
        case .formatVersion: preview ? storedColumn : "0"
        case .floorAreaMethod: preview ? storedColumn : "NULL"
        }
    }

    /// The stored rooms' SELECT for `selection` (the columns it reads), before its keyset condition.
    static func select(_ selection: DeriveSelection) -> String {
        selects[(selection.readsPreviewColumns ? 2 : 0) + (selection.readsRawHash ? 1 : 0)]
    }

    /// Without and with the raw room's hash, then the same with the preview's columns.
    private static let selects = [false, true].flatMap { preview in
        [false, true].map { selectText(preview: preview, rawHash: $0) }
    }

    private static func selectText(preview: Bool, rawHash: Bool) -> String {
        """
        SELECT \(selectList { $0.sqliteExpression(preview: preview, rawHash: rawHash) })
        FROM record JOIN raw_room ON raw_room.record_seq = record.seq
        LEFT JOIN summary ON summary.record_seq = record.seq
        """
    }
}
