/// The columns a derive reads of each stored room, in the order of the SELECT each engine
/// generates from them (`StoredRoomColumn+SQLite`, `StoredRoomColumn+Postgres`): rows are read
/// by position (`rawValue`), as looking up a dozen column names per record cost a derive ~2%.
package enum StoredRoomColumn: Int, CaseIterable, Sendable {
    case seq, id, skeleton, summaryVersion, fingerprint, summaryJSON, sourceFile, sourceLine, roomName
    /// The room name's exact UTF-8 where text cannot hold it (PostgreSQL's NUL, `PostgresText`);
    /// NULL on SQLite.
    case roomNameUTF8
    case formatVersion, floorAreaMethod, runID

    /// The select list: every column's SQL expression, in order.
    package static func selectList(_ expression: (StoredRoomColumn) -> String) -> String {
        allCases.map(expression).joined(separator: ", ")
    }
}
