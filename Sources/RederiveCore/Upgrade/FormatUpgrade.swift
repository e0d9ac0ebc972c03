/// The record format upgrade chain, 1 → 2 → 3: one small pure function per step.
public enum FormatUpgrade {
    /// Version 1 → 2: the id is derived from the content (so importing the same export twice
    /// gives the same ids), the reference-date timestamp becomes ISO 8601, and the summary is
    /// the stored `summaryJSON` or, without one, the legacy columns.
    public static func upgrade(_ record: ExportRecordV1) -> ExportRecordV2 {
        ExportRecordV2(
            id: RecordIdentity.contentID(
                roomName: record.roomName, timestamp: record.timestamp, roomData: record.fullRoomData),
            roomName: record.roomName,
            capturedAt: ReferenceDate.iso8601(secondsSinceReferenceDate: record.timestamp),
            fullRoomData: record.fullRoomData,
            summary: record.summaryJSON ?? legacySummary(record)
        )
    }

    /// Version 2 → 3: the raw room bytes move to `room`; the summary's algorithm version is
    /// unknown (0).
    public static func upgrade(_ record: ExportRecordV2) -> ExportRecordV3 {
        ExportRecordV3(
            id: record.id, roomName: record.roomName, capturedAt: record.capturedAt,
            room: record.fullRoomData, summary: record.summary, summaryVersion: 0)
    }

    /// Any parsed record → the current format, step by step.
    public static func toCurrent(_ record: ParsedRecord) -> ExportRecordV3 {
        switch record {
        case .v1(let v1): upgrade(upgrade(v1))
        case .v2(let v2): upgrade(v2)
        case .v3(let v3): v3
        }
    }

    // The legacy columns of a v1 record as a summary object (keys of the summary spec).
    static func legacySummary(_ record: ExportRecordV1) -> [UInt8]? {
        var parts: [String] = []
        if let v = record.wallCount { parts.append("\"wall_count\":\(v)") }
        if let v = record.objectCount { parts.append("\"object_count\":\(v)") }
        if let v = record.ceilingHeightM, v.isFinite { parts.append("\"ceiling_height_m\":\(v)") }
        if let v = record.floorAreaSqM, v.isFinite { parts.append("\"estimated_floor_area_sqm\":\(v)") }
        guard !parts.isEmpty else { return nil }
        return Array("{\(parts.joined(separator: ","))}".utf8)
    }
}
