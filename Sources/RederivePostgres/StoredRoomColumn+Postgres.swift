import RederiveCore

extension StoredRoomColumn {
    /// The SQL expression that yields the column on PostgreSQL; a preview-only column is a
    /// typed constant when `preview` is false (`DeriveSelection.readsPreviewColumns`).
    func postgresExpression(preview: Bool) -> String {
        switch self {
        // The run that wrote a summary and the raw room's hash are read always: a plan's check,
        // which shows nothing, needs the first, its apply the second (`DeriveSpill`).
        case .seq, .id, .skeleton, .summaryVersion, .fingerprint, .summaryJSON, .sourceFile, .sourceLine, .runID,
            .rawHash:
            storedColumn
        case .roomName: preview ? "left(\(storedColumn), \(PreviewText.limit + 1))" : "''::text"
        case .roomNameUTF8:
            preview ? "substring(\(storedColumn) from 1 for \(PreviewText.readBytes))" : "NULL::bytea"
        case .formatVersion: preview ? storedColumn : "0::int4"
        case .floorAreaMethod: preview ? storedColumn : "NULL::text"
        }
    }

    /// The select list of the stored rooms (`preview`: with the columns only a preview reads).
    static func postgresSelectList(preview: Bool) -> String {
        preview ? previewList : runList
    }

    private static let previewList = selectList { $0.postgresExpression(preview: true) }
    private static let runList = selectList { $0.postgresExpression(preview: false) }
}
