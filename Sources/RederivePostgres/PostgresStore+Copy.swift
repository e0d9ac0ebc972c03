import RederiveCore

extension PostgresStore {
    /// The next page of records to copy by keyset (`seq > after AND seq <= upTo ORDER BY seq
    /// LIMIT limit`): each record's metadata and its raw room as stored, nothing derived.
    package func fetchCopyPage(after: Int64, upTo: Int64, limit: Int) throws(RederiveError) -> [CopyRow] {
        try io("read") {
            try reader.run(
                """
                SELECT record.seq, record.id, record.room_name, record.room_name_utf8, record.captured_at,
                       record.source_format_version,
                       record.source_file, record.source_line, record.source_summary, record.source_summary_version,
                       raw_room.core_model_offset, raw_room.skeleton, raw_core_model.bytes
                FROM record JOIN raw_room ON raw_room.record_seq = record.seq
                JOIN raw_core_model ON raw_core_model.record_seq = record.seq
                WHERE record.seq > $1 AND record.seq <= $2 ORDER BY record.seq LIMIT $3
                """, .of(after, upTo, limit)
            ).rows.map { row in
                let r = row.makeRandomAccess()
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
        }
    }
}
