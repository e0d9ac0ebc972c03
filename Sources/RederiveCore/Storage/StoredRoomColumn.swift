/// The columns a derive reads of each stored room, in the order of the SELECT each engine
/// generates from them (`StoredRoomColumn+SQLite`, `StoredRoomColumn+Postgres`): rows are read
/// by position (`rawValue`), as looking up a dozen column names per record cost a derive ~2%.
package enum StoredRoomColumn: Int, CaseIterable, Sendable {
    case seq, id, skeleton, summaryVersion, fingerprint, summaryJSON, sourceFile, sourceLine, roomName
    /// The room name's exact UTF-8 where text cannot hold it (PostgreSQL's NUL, `PostgresText`);
    /// NULL on SQLite.
    case roomNameUTF8
    case formatVersion, floorAreaMethod, runID, rawHash

    /// The stored column it reads, as both engines name it (`record.seq`): what each selects,
    /// except for the room name (which each reads its own way) and, in a run that shows no
    /// preview, for the preview-only columns (a typed constant instead).
    package var storedColumn: String {
        switch self {
        case .seq: "record.seq"
        case .id: "record.id"
        case .skeleton: "raw_room.skeleton"
        case .summaryVersion: "summary.summary_version"
        case .fingerprint: "summary.fingerprint"
        case .summaryJSON: "summary.summary_json"
        case .sourceFile: "record.source_file"
        case .sourceLine: "record.source_line"
        case .roomName: "record.room_name"
        case .roomNameUTF8: "record.room_name_utf8"  // PostgreSQL's only
        case .formatVersion: "record.source_format_version"
        case .floorAreaMethod: "summary.floor_area_method"
        case .runID: "summary.run_id"
        case .rawHash: "record.raw_hash"
        }
    }

    /// The select list: every column's SQL expression, in order.
    package static func selectList(_ expression: (StoredRoomColumn) -> String) -> String {
        allCases.map(expression).joined(separator: ", ")
    }
}
