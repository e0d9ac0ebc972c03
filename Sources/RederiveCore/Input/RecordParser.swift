import CRoomJSON

/// Parses export lines into records of their format version, and raw rooms into `Room`s,
/// through the simdjson bridge. Not thread-safe: give each worker its own parser.
public final class RecordParser {
    private let handle: OpaquePointer
    var handleForExtensions: OpaquePointer { handle }
    private var record = rj_record()
    private var roomOut = rj_room()

    /// Creates a parser (allocates simdjson's buffers lazily).
    public init() {
        guard let handle = rj_parser_create() else { fatalError("out of memory creating a JSON parser") }
        self.handle = handle
    }

    deinit { rj_parser_destroy(handle) }

    /// Parses one line (a whole JSON document) into a record of its format version.
    public func parse(_ line: [UInt8]) -> Result<ParsedRecord, RecordFailure> {
        line.withUnsafeBufferPointer { parse($0, readable: line.capacity) }
    }

    /// `parse(_:)` of bytes read in place, of which `readable` from their start may be read; they
    /// stay alive and unchanged for this call.
    func parse(_ buf: UnsafeBufferPointer<UInt8>, readable: Int) -> Result<ParsedRecord, RecordFailure> {
        let status = rj_parse_record(handle, buf.baseAddress, buf.count, readable, &record)
        if status != RJ_OK.rawValue {
            let code = Self.issueCode(status, notAnObject: .notAnObject, otherwise: .invalidJSON)
            return .failure(RecordFailure(stage: .parse, code: code, message: messageText(&record.message)))
        }
        // Extracted strings and raw objects point into the parser and into `buf`, both alive
        // for this call: `parsed()` copies what it keeps.
        return withUnsafePointer(to: &record.fields) { tuple in
            tuple.withMemoryRebound(to: rj_value.self, capacity: Int(RJF_COUNT.rawValue)) { fields in
                RecordFields(fields: fields).parsed()
            }
        }
    }

    /// Validates and decodes a raw CapturedRoom JSON document. `storedByImport`: the bytes are a
    /// stored raw room, which import validated whole; the duplicate-key walk over every object
    /// (a tenth of a derive's time) is then not repeated. Everything derive reads is still checked.
    public func decodeRoom(_ bytes: [UInt8], storedByImport: Bool = false) -> Result<Room, RecordFailure> {
        bytes.withUnsafeBufferPointer { decodeRoom($0, readable: bytes.capacity, storedByImport: storedByImport) }
    }

    /// `decodeRoom(_:storedByImport:)` of bytes read in place (a span of a batch's buffer).
    package func decodeRoom(_ bytes: PaddedBytes, storedByImport: Bool = false) -> Result<Room, RecordFailure> {
        bytes.withUnsafeBytes { decodeRoom($0, readable: $1, storedByImport: storedByImport) }
    }

    /// Decodes `buf`, of which `readable` bytes from its start may be read (its padding).
    private func decodeRoom(
        _ buf: UnsafeBufferPointer<UInt8>, readable: Int, storedByImport: Bool
    ) -> Result<Room, RecordFailure> {
        let status =
            storedByImport
            ? rj_parse_room_stored(handle, buf.baseAddress, buf.count, readable, &roomOut)
            : rj_parse_room(handle, buf.baseAddress, buf.count, readable, &roomOut)
        return decodedRoom(status: status)
    }

    /// The `room` of the format-3 record `parse(_:)` returned last, decoded from that parse:
    /// what `decodeRoom` of its bytes returns (the record's parse validated them whole), without
    /// parsing the room a second time. Call it right after that `parse(_:)`, once.
    public func decodeParsedRoom() -> Result<Room, RecordFailure> {
        decodedRoom(status: rj_parse_record_room(handle, &roomOut))
    }

    // The room `roomOut` holds after a parse that returned `status`, or its failure.
    private func decodedRoom(status: Int32) -> Result<Room, RecordFailure> {
        if status != RJ_OK.rawValue {
            let code = Self.issueCode(
                status, notAnObject: .roomNotObject, otherwise: .invalidRoomJSON, specific: Self.roomIssueCodes)
            return .failure(
                RecordFailure(stage: .decode, code: code, message: "room: " + messageText(&roomOut.message)))
        }
        if let tooLarge = Self.tooLarge(roomOut) { return .failure(tooLarge) }
        return .success(buildRoom(roomOut))
    }

    /// The issue code of a failed parse's status: the codes every document shares (a JSON
    /// text that is not an object is `notAnObject`), then the document's `specific` codes,
    /// then `otherwise`.
    private static func issueCode(
        _ status: Int32, notAnObject: IssueCode, otherwise: IssueCode, specific: [UInt32: IssueCode] = [:]
    ) -> IssueCode {
        switch UInt32(status) {
        case RJ_INVALID_UTF8.rawValue: .invalidUTF8
        case RJ_NOT_OBJECT.rawValue: notAnObject
        case RJ_NUMBER_OUT_OF_RANGE.rawValue: .nonFiniteNumber
        default: specific[UInt32(status)] ?? otherwise
        }
    }

    /// The codes of a room's own checks (a record's other statuses, RJ_INTERNAL included, are `invalidJSON`).
    private static let roomIssueCodes: [UInt32: IssueCode] = [
        RJ_NON_FINITE.rawValue: .nonFiniteNumber,
        RJ_MISSING_KEY.rawValue: .missingKey,
        RJ_WRONG_TYPE.rawValue: .wrongType,
        RJ_BAD_TRANSFORM.rawValue: .badTransform,
        RJ_BAD_DIMENSIONS.rawValue: .badDimensions,
        RJ_NEGATIVE_DIMENSION.rawValue: .negativeDimension,
        RJ_INTERNAL.rawValue: .internalError,
    ]

    /// The parser's surface kinds, in `rj_room.surface_counts`' order.
    private static let surfaceKindNames = ["walls", "doors", "windows", "openings", "floors"]

    // Checked on the flat arrays' counts, before any Swift array of the room is built.
    private static func tooLarge(_ r: rj_room) -> RecordFailure? {
        let counts = SurfaceCounts(r)
        var excess: [String] = []
        for (kind, name) in surfaceKindNames.enumerated() where counts[kind] > RoomLimits.maxSurfacesPerKind {
            excess.append("\(counts[kind]) \(name) (limit \(RoomLimits.maxSurfacesPerKind))")
        }
        if Int(r.object_count) > RoomLimits.maxObjects {
            excess.append("\(r.object_count) objects (limit \(RoomLimits.maxObjects))")
        }
        var corners = 0
        for f in 0..<counts[4] { corners += Int(r.floor_corner_counts[f]) }
        if corners > RoomLimits.maxFloorCorners {
            excess.append("\(corners) floor polygon corners (limit \(RoomLimits.maxFloorCorners))")
        }
        guard !excess.isEmpty else { return nil }
        return RecordFailure(
            stage: .decode, code: .roomTooLarge,
            message: "room: too large: " + excess.joined(separator: ", "))
    }

    private func buildRoom(_ r: rj_room) -> Room {
        func surfaces(from start: Int, count: Int) -> [Surface] {
            (0..<count).map { i in
                let p = r.surfaces + (start + i) * Int(RJ_ELEMENT_STRIDE)
                return Surface(
                    dimensions: SIMD3(p[0], p[1], p[2]),
                    transform: Transform(p + 3))
            }
        }
        let counts = SurfaceCounts(r)
        var floors = surfaces(from: counts.offset(4), count: counts[4])
        var cornerIndex = 0
        for f in floors.indices {
            let n = Int(r.floor_corner_counts[f])
            floors[f].polygonCorners = (0..<n).map { k in
                let p = r.floor_corners + (cornerIndex + k) * 3
                return SIMD3(p[0], p[1], p[2])
            }
            cornerIndex += n
        }
        func string(
            _ pairs: UnsafePointer<Int32>, _ i: Int, cut: ((UnsafeBufferPointer<UInt8>) -> Int)? = nil
        ) -> String {
            let offset = Int(pairs[2 * i]), length = Int(pairs[2 * i + 1])
            guard offset >= 0 else { return "" }
            return r.strings.withMemoryRebound(to: UInt8.self, capacity: offset + length) {
                let bytes = UnsafeBufferPointer(start: $0 + offset, count: length)
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<(cut?(bytes) ?? length)]), as: UTF8.self)
            }
        }
        let objects = (0..<Int(r.object_count)).map { i in
            let p = r.objects + i * Int(RJ_ELEMENT_STRIDE)
            return RoomObject(
                category: string(r.object_categories, i, cut: RoomLimits.categoryLength),
                dimensions: SIMD3(p[0], p[1], p[2]),
                transform: Transform(p + 3))
        }
        let labels = (0..<Int(r.section_count)).map { string(r.section_labels, $0) }
        return Room(
            walls: surfaces(from: counts.offset(0), count: counts[0]),
            doors: surfaces(from: counts.offset(1), count: counts[1]),
            windows: surfaces(from: counts.offset(2), count: counts[2]),
            openings: surfaces(from: counts.offset(3), count: counts[3]),
            floors: floors, objects: objects, sectionLabels: labels)
    }
}

func messageText<T>(_ tuple: inout T) -> String {
    withUnsafeBytes(of: &tuple) { raw in
        let bytes = raw.bindMemory(to: UInt8.self)
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}

/// Typed access to the extracted top-level fields of one record.
struct RecordFields {
    let fields: UnsafePointer<rj_value>

    private static let names: [String] = [
        "formatVersion", "id", "roomName", "capturedAt", "timestamp", "fullRoomDataJSON", "summaryJSON",
        "summary", "summaryVersion", "room", "floorAreaSqM", "ceilingHeightM", "wallCount", "objectCount",
    ]

    private func value(_ f: rj_record_field) -> rj_value { fields[Int(f.rawValue)] }

    private static func kindName(_ kind: Int32) -> String {
        switch UInt32(kind) {
        case RJ_NULL.rawValue: "null"
        case RJ_BOOL.rawValue: "a boolean"
        case RJ_INT.rawValue, RJ_DOUBLE.rawValue: "a number"
        case RJ_STRING.rawValue: "a string"
        case RJ_OBJECT.rawValue: "an object"
        case RJ_ARRAY.rawValue: "an array"
        default: "nothing"
        }
    }

    private func missing(_ f: rj_record_field, id: String? = nil) -> RecordFailure {
        RecordFailure(
            stage: .parse, code: .missingKey, message: "missing required key \"\(Self.names[Int(f.rawValue)])\"", id: id
        )
    }

    private func wrongType(_ f: rj_record_field, expected: String, id: String? = nil) -> RecordFailure {
        RecordFailure(
            stage: .parse, code: .wrongType,
            message:
                "key \"\(Self.names[Int(f.rawValue)])\" must be \(expected), found \(Self.kindName(value(f).kind))",
            id: id)
    }

    private func bytes(_ v: rj_value) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: UnsafeRawPointer(v.bytes)?.assumingMemoryBound(to: UInt8.self), count: v.length)
    }

    private func string(_ f: rj_record_field, id: String? = nil) throws(RecordFailure) -> String {
        let v = value(f)
        guard v.kind != RJ_MISSING.rawValue else { throw missing(f, id: id) }
        guard v.kind == RJ_STRING.rawValue else { throw wrongType(f, expected: "a string", id: id) }
        return String(decoding: bytes(v), as: UTF8.self)
    }

    private func number(_ f: rj_record_field) throws(RecordFailure) -> Double {
        let v = value(f)
        guard v.kind != RJ_MISSING.rawValue else { throw missing(f) }
        guard v.kind == RJ_INT.rawValue || v.kind == RJ_DOUBLE.rawValue else {
            throw wrongType(f, expected: "a number")
        }
        return v.number
    }

    private func optionalNumber(_ f: rj_record_field) -> Double? {
        let v = value(f)
        return v.kind == RJ_INT.rawValue || v.kind == RJ_DOUBLE.rawValue ? v.number : nil
    }

    private func base64(_ f: rj_record_field, required: Bool, id: String? = nil) throws(RecordFailure) -> [UInt8]? {
        let v = value(f)
        if v.kind == RJ_MISSING.rawValue || (!required && v.kind == RJ_NULL.rawValue) {
            if required { throw missing(f, id: id) }
            return nil
        }
        guard v.kind == RJ_STRING.rawValue else { throw wrongType(f, expected: "a base64 string", id: id) }
        let capacity = v.length / 4 * 3 + 3 + Int(RJ_PADDING)
        var failed = false
        let decoded = [UInt8](unsafeUninitializedCapacity: capacity) { buf, count in
            let n = rj_base64_decode(v.bytes, v.length, buf.baseAddress)
            if n < 0 { failed = true; count = 0 } else { count = Int(n) }
        }
        if failed {
            throw RecordFailure(
                stage: .parse, code: .invalidBase64,
                message: "key \"\(Self.names[Int(f.rawValue)])\" is not valid base64", id: id)
        }
        return decoded
    }

    // Raw JSON text of an object value (located in the line by the bridge).
    private func object(_ f: rj_record_field, required: Bool, id: String?) throws(RecordFailure) -> [UInt8]? {
        let v = value(f)
        if v.kind == RJ_MISSING.rawValue || (!required && v.kind == RJ_NULL.rawValue) {
            if required { throw missing(f, id: id) }
            return nil
        }
        guard v.kind == RJ_OBJECT.rawValue else { throw wrongType(f, expected: "an object", id: id) }
        var out = [UInt8]()
        out.reserveCapacity(v.length + Int(RJ_PADDING))
        out.append(contentsOf: bytes(v))
        return out
    }

    // A string that must be an ISO 8601 date-time (EXPORT-FORMAT.md: `capturedAt`).
    private func timestamp(_ f: rj_record_field, id: String?) throws(RecordFailure) -> String {
        let text = try string(f, id: id)
        guard TimestampText.isISO8601DateTime(text) else {
            throw RecordFailure(
                stage: .parse, code: .invalidTimestamp,
                message: "\(Self.names[Int(f.rawValue)]) \"\(text.prefix(64))\" is not an ISO 8601 date-time",
                id: id)
        }
        return text
    }

    private func uuid(_ f: rj_record_field) throws(RecordFailure) -> String {
        let text = try string(f)
        guard let id = RecordIdentity.canonicalUUID(text) else {
            throw RecordFailure(stage: .parse, code: .invalidID, message: "id \"\(text.prefix(64))\" is not a UUID")
        }
        return id
    }

    func parsed() -> Result<ParsedRecord, RecordFailure> {
        do throws(RecordFailure) {
            let fv = value(RJF_FORMAT_VERSION)
            var version = 1
            if fv.kind != RJ_MISSING.rawValue {
                guard fv.kind == RJ_INT.rawValue else { throw wrongType(RJF_FORMAT_VERSION, expected: "an integer") }
                version = Int(fv.integer)
            }
            switch version {
            case 1:
                let name = try string(RJF_ROOM_NAME)
                let timestamp = try number(RJF_TIMESTAMP)
                guard ReferenceDate.representable.contains(timestamp) else {
                    throw RecordFailure(
                        stage: .parse, code: .invalidTimestamp,
                        message: "timestamp \(timestamp) is outside the years 1 to 9999")
                }
                let room = try base64(RJF_FULL_ROOM_DATA, required: true)!
                let summary = try base64(RJF_SUMMARY_JSON, required: false)
                let walls = optionalNumber(RJF_WALL_COUNT), objects = optionalNumber(RJF_OBJECT_COUNT)
                return .success(
                    .v1(
                        ExportRecordV1(
                            roomName: name, timestamp: timestamp, fullRoomData: room, summaryJSON: summary,
                            floorAreaSqM: optionalNumber(RJF_FLOOR_AREA),
                            ceilingHeightM: optionalNumber(RJF_CEILING_HEIGHT),
                            wallCount: walls.flatMap { Int(exactly: $0) },
                            objectCount: objects.flatMap { Int(exactly: $0) })))
            case 2:
                let id = try uuid(RJF_ID)
                let name = try string(RJF_ROOM_NAME, id: id)
                let capturedAt = try timestamp(RJF_CAPTURED_AT, id: id)
                let room = try base64(RJF_FULL_ROOM_DATA, required: true, id: id)!
                let summary = try object(RJF_SUMMARY, required: false, id: id)
                return .success(
                    .v2(
                        ExportRecordV2(
                            id: id, roomName: name, capturedAt: capturedAt,
                            fullRoomData: room, summary: summary)))
            case 3:
                let id = try uuid(RJF_ID)
                let name = try string(RJF_ROOM_NAME, id: id)
                let capturedAt = try timestamp(RJF_CAPTURED_AT, id: id)
                let room = try object(RJF_ROOM, required: true, id: id)!
                let summary = try object(RJF_SUMMARY, required: false, id: id)
                let sv = value(RJF_SUMMARY_VERSION)
                var summaryVersion = 0
                if sv.kind == RJ_INT.rawValue {
                    summaryVersion = Int(sv.integer)
                } else if sv.kind != RJ_MISSING.rawValue && sv.kind != RJ_NULL.rawValue {
                    throw wrongType(RJF_SUMMARY_VERSION, expected: "an integer", id: id)
                }
                return .success(
                    .v3(
                        ExportRecordV3(
                            id: id, roomName: name, capturedAt: capturedAt, room: room,
                            summary: summary, summaryVersion: summaryVersion)))
            default:
                var id: String?
                if value(RJF_ID).kind == RJ_STRING.rawValue {
                    id = RecordIdentity.canonicalUUID(String(decoding: bytes(value(RJF_ID)), as: UTF8.self))
                }
                throw RecordFailure(
                    stage: .upgrade, code: .unsupportedFormatVersion,
                    message: "formatVersion \(version) is not supported "
                        + "(this build reads 1 to \(ExportRecordV3.formatVersion))",
                    id: id)
            }
        } catch {
            return .failure(error)
        }
    }
}
