/// A version-1 record (first app releases): no id, no `formatVersion`, the raw room as
/// base64 text and a Foundation reference-date timestamp.
public struct ExportRecordV1: Sendable, Equatable {
    /// The room's name as the user typed it.
    public var roomName: String
    /// Seconds since 2001-01-01T00:00:00Z (Foundation's reference date).
    public var timestamp: Double
    /// The CapturedRoom JSON bytes, base64-decoded from `fullRoomDataJSON`.
    public var fullRoomData: [UInt8]
    /// The stored summary JSON bytes, base64-decoded from `summaryJSON`, if present.
    public var summaryJSON: [UInt8]?
    /// Legacy derived columns as the app stored them.
    public var floorAreaSqM: Double?
    /// Legacy ceiling height.
    public var ceilingHeightM: Double?
    /// Legacy wall count.
    public var wallCount: Int?
    /// Legacy object count.
    public var objectCount: Int?

    /// Creates a version-1 record.
    public init(
        roomName: String, timestamp: Double, fullRoomData: [UInt8], summaryJSON: [UInt8]? = nil,
        floorAreaSqM: Double? = nil, ceilingHeightM: Double? = nil, wallCount: Int? = nil,
        objectCount: Int? = nil
    ) {
        self.roomName = roomName
        self.timestamp = timestamp
        self.fullRoomData = fullRoomData
        self.summaryJSON = summaryJSON
        self.floorAreaSqM = floorAreaSqM
        self.ceilingHeightM = ceilingHeightM
        self.wallCount = wallCount
        self.objectCount = objectCount
    }
}

/// A version-2 record: a UUID id, an ISO 8601 capture time, the raw room still as base64.
public struct ExportRecordV2: Sendable, Equatable {
    /// Canonical (uppercase) UUID string.
    public var id: String
    /// The room's name.
    public var roomName: String
    /// ISO 8601 capture time.
    public var capturedAt: String
    /// The CapturedRoom JSON bytes, base64-decoded.
    public var fullRoomData: [UInt8]
    /// The summary JSON as the app last derived it (may be stale or absent).
    public var summary: [UInt8]?

    /// Creates a version-2 record.
    public init(id: String, roomName: String, capturedAt: String, fullRoomData: [UInt8], summary: [UInt8]?) {
        self.id = id
        self.roomName = roomName
        self.capturedAt = capturedAt
        self.fullRoomData = fullRoomData
        self.summary = summary
    }
}

/// A version-3 (current) record: the raw room inline, the summary's algorithm version.
public struct ExportRecordV3: Sendable, Equatable {
    /// The newest record format version this build knows.
    public static let formatVersion = 3

    /// Canonical (uppercase) UUID string.
    public var id: String
    /// The room's name.
    public var roomName: String
    /// ISO 8601 capture time.
    public var capturedAt: String
    /// The raw CapturedRoom JSON bytes, exactly as received.
    public var room: [UInt8]
    /// The summary JSON as the app last derived it (may be stale or absent).
    public var summary: [UInt8]?
    /// The algorithm version that produced `summary` (0 = unknown).
    public var summaryVersion: Int

    /// Creates a version-3 record.
    public init(id: String, roomName: String, capturedAt: String, room: [UInt8], summary: [UInt8]?, summaryVersion: Int)
    {
        self.id = id
        self.roomName = roomName
        self.capturedAt = capturedAt
        self.room = room
        self.summary = summary
        self.summaryVersion = summaryVersion
    }
}

/// A record as parsed, in the format version it was written in.
public enum ParsedRecord: Sendable, Equatable {
    /// Version 1 (no `formatVersion` key).
    case v1(ExportRecordV1)
    /// Version 2.
    case v2(ExportRecordV2)
    /// Version 3 (current).
    case v3(ExportRecordV3)

    /// The format version the record was written in.
    public var formatVersion: Int {
        switch self {
        case .v1: 1
        case .v2: 2
        case .v3: 3
        }
    }
}
