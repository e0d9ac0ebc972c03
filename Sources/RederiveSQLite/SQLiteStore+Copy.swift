import Foundation
import GRDB
import RederiveCore

extension SQLiteStore {
    /// The next page of records to copy by keyset (`seq > after AND seq <= upTo ORDER BY seq
    /// LIMIT limit`): each record's metadata and its raw room as stored, nothing derived.
    package func fetchCopyPage(after: Int64, upTo: Int64, limit: Int) throws(RederiveError) -> [CopyRow] {
        do {
            return try pool.read { db in
                try KeysetFilter().page(
                    db,
                    """
                    SELECT record.seq, record.id, \(Self.selectText("record.room_name")), record.captured_at,
                           record.source_format_version,
                           record.source_file, record.source_line, record.source_summary,
                           record.source_summary_version, raw_room.core_model_offset, raw_room.skeleton,
                           raw_core_model.bytes
                    FROM record JOIN raw_room ON raw_room.record_seq = record.seq
                    JOIN raw_core_model ON raw_core_model.record_seq = record.seq
                    """, after: after, upTo: upTo, limit: limit
                ) { row in
                    CopyRow(
                        seq: row[0], id: row[1], roomName: Self.text(row[2]), capturedAt: row[3],
                        sourceFormatVersion: row[4],
                        sourceFile: row[5], sourceLine: row[6], sourceSummary: row[7], sourceSummaryVersion: row[8],
                        parts: RawRoomParts(
                            skeleton: [UInt8](row[10] as Data), coreModel: [UInt8](row[11] as Data),
                            coreModelOffset: row[9]))
                }
            }
        } catch {
            throw .io("\(path): cannot read: \(error)")
        }
    }
}
