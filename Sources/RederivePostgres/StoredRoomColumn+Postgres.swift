import RederiveCore

extension StoredRoomColumn {
    /// The SQL expression that yields the column on PostgreSQL; a preview-only column is a
    /// typed constant when `preview` is false (`DeriveSelection.readsPreviewColumns`).
    func postgresExpression(preview: Bool) -> String {
        switch self {
        case .seq: "record.seq"
        case .id: "record.id"
        case .skeleton: "raw_room.skeleton"
        case .summaryVersion: "summary.summary_version"
        case .fingerprint: "summary.fingerprint"
        case .summaryJSON: "summary.summary_json"
        case .sourceFile: "record.source_file"
        case .sourceLine: "record.source_line"
        case .roomName: preview ? "left(record.room_name, \(PreviewText.limit + 1))" : "''::text"
        case .roomNameUTF8:
            preview ? "substring(record.room_name_utf8 from 1 for \(PreviewText.readBytes))" : "NULL::bytea"
        case .formatVersion: preview ? "record.source_format_version" : "0::int4"
        case .floorAreaMethod: preview ? "summary.floor_area_method" : "NULL::text"
        case .runID: preview ? "summary.run_id" : "NULL::int8"
        }
    }

    /// The select list of the stored rooms (`preview`: with the columns only a preview reads).
    static func postgresSelectList(preview: Bool) -> String {
        preview ? previewList : runList
    }

    private static let previewList = selectList { $0.postgresExpression(preview: true) }
    private static let runList = selectList { $0.postgresExpression(preview: false) }
}
