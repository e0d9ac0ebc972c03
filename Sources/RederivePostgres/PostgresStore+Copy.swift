import RederiveCore

extension PostgresStore {
    /// What a copy reads of a record: its metadata and its raw room as stored, nothing derived.
    private static let copyColumns: [PostgresCopyOut.Column] = [
        .init("record.seq", as: .int8), .init("record.id", as: .text), .init("record.room_name", as: .text),
        .init("record.room_name_utf8", as: .bytea), .init("record.captured_at", as: .text),
        .init("record.source_format_version", as: .int4), .init("record.source_file", as: .text),
        .init("record.source_line", as: .int4), .init("record.source_summary", as: .text),
        .init("record.source_summary_version", as: .int4), .init("raw_room.core_model_offset", as: .int4),
        .init("raw_room.skeleton", as: .bytea), .init("raw_core_model.bytes", as: .bytea),
    ]

    private static let copyFrom = """
        FROM record JOIN raw_room ON raw_room.record_seq = record.seq
        JOIN raw_core_model ON raw_core_model.record_seq = record.seq
        """

    // One copy row from the cells of `copyColumns` (a result's row or a COPY's tuple).
    private static func copyRow(_ r: some PostgresCells) throws -> CopyRow {
        let skeleton = try r["skeleton"].decode([UInt8].self)
        let core = try r["bytes"].decode([UInt8].self)
        return CopyRow(
            seq: try r["seq"].decode(Int64.self), id: try r["id"].decode(String.self),
            roomName: try PostgresText.read(r, "room_name"),
            capturedAt: try r["captured_at"].decode(String.self),
            sourceFormatVersion: try r["source_format_version"].decode(Int.self),
            sourceFile: try r["source_file"].decode(String.self),
            sourceLine: try r["source_line"].decode(Int.self),
            sourceSummary: try r["source_summary"].decode(String?.self),
            sourceSummaryVersion: try r["source_summary_version"].decode(Int.self),
            parts: RawRoomParts(
                skeleton: skeleton,
                coreModel: core,
                coreModelOffset: try r["core_model_offset"].decode(Int.self)))
    }

    /// The next page of records to copy by keyset (`seq > after AND seq <= upTo ORDER BY seq
    /// LIMIT limit`): each record's metadata and its raw room as stored, nothing derived.
    package func fetchCopyPage(after: Int64, upTo: Int64, limit: Int) throws(RederiveError) -> [CopyRow] {
        try io("read") {
            try reader.run(
                "SELECT " + Self.copyColumns.map(\.sql).joined(separator: ", ") + " " + Self.copyFrom
                    + " WHERE record.seq > $1 AND record.seq <= $2 ORDER BY record.seq LIMIT $3",
                .of(after, upTo, limit)
            ).rows.map(Self.copyRow)
        }
    }

    /// The records to copy up to `upTo` in one `COPY (SELECT …) TO STDOUT (FORMAT binary)` on a
    /// connection of its own (`PostgresCopyOut`), in batches of `limit`: one snapshot, read
    /// once, never held whole.
    package func copyBatches(upTo: Int64, limit: Int) throws(RederiveError) -> RowBatches<CopyRow> {
        let rest = Self.copyFrom + " WHERE record.seq <= \(upTo) ORDER BY record.seq"
        let copy = try io("read") { try PostgresCopyOut(conninfo: conninfo, columns: Self.copyColumns, rest: rest) }
        return RowBatches(
            next: { () throws(RederiveError) in try self.io("read") { try copy.next(limit: limit, Self.copyRow) } },
            close: copy.close)
    }
}
