import RederiveCore

/// The columns a derive reads of each stored room, in the order of the SELECT they generate:
/// rows are read by position, as hashing twelve column names per record cost a derive ~2%.
enum StoredRoomColumn: Int, CaseIterable {
    case seq, id, skeleton, summaryVersion, fingerprint, summaryJSON, sourceFile, sourceLine, roomName
    case formatVersion, floorAreaMethod, runID

    /// The SQL expression that yields the column.
    var expression: String {
        switch self {
        case .seq: "record.seq"
        case .id: "record.id"
        case .skeleton: "raw_room.skeleton"
        case .summaryVersion: "summary.summary_version"
        case .fingerprint: "summary.fingerprint"
        case .summaryJSON: "summary.summary_json"
        case .sourceFile: "record.source_file"
        case .sourceLine: "record.source_line"
        case .roomName: "substr(CAST(record.room_name AS BLOB), 1, \(PreviewText.readBytes))"
        case .formatVersion: "record.source_format_version"
        case .floorAreaMethod: "summary.floor_area_method"
        case .runID: "summary.run_id"
        }
    }

    /// The stored rooms' SELECT, before its keyset condition.
    static let select = """
        SELECT \(allCases.map(\.expression).joined(separator: ", "))
        FROM record JOIN raw_room ON raw_room.record_seq = record.seq
        LEFT JOIN summary ON summary.record_seq = record.seq
        """
}
