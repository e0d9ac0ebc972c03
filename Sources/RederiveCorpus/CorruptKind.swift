/// The ways a generated record is deliberately broken, one per rule of "What makes a
/// record corrupt" in the export format (Sources/RederiveCore/RederiveCore.docc/ExportFormat.md).
/// The generator cycles over them in this order.
public enum CorruptKind: String, CaseIterable, Sendable, Codable, Comparable {
    /// A v3 record cut off halfway: not valid JSON.
    case truncatedJSON = "truncated_json"
    /// A v3 record whose `roomName` holds the bytes 0xC3 0x28 (not UTF-8).
    case invalidUTF8 = "invalid_utf8"
    /// Valid JSON that is not an object: `[1,2,3]`.
    case notAnObject = "not_an_object"
    /// A v3 record without `room`.
    case missingRoom = "missing_room"
    /// A v2 record without `id`.
    case missingId = "missing_id"
    /// A v3 record with `"roomName": 42`.
    case wrongType = "wrong_type"
    /// A v2 record with `"fullRoomDataJSON": "!!!not base64"`.
    case badBase64 = "bad_base64"
    /// A v2 record whose `fullRoomDataJSON` is the base64 of `not json`.
    case roomNotJSON = "room_not_json"
    /// A v3 record with the literal `1e999` as a wall transform's x translation.
    case nonFiniteNumber = "non_finite_number"
    /// A v3 record whose first wall's `transform` has 15 numbers.
    case shortTransform = "short_transform"
    /// A v3 record whose first wall has a negative width.
    case negativeDimension = "negative_dimension"
    /// A v3-shaped record with `"formatVersion": 9`.
    case unsupportedVersion = "unsupported_format_version"
    /// A well-formed v2 or v3 record repeating the `id` of an earlier good record in the
    /// same file (every second such record spells the id in lower case).
    case duplicateId = "duplicate_id"

    /// Orders kinds by their position in `allCases`.
    public static func < (a: CorruptKind, b: CorruptKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// A one-line human description, used for fixture READMEs.
    public var explanation: String {
        switch self {
        case .truncatedJSON: return "not valid JSON: a v3 record cut off halfway"
        case .invalidUTF8: return "not valid UTF-8: bytes 0xC3 0x28 inside roomName (v3)"
        case .notAnObject: return "valid JSON but not an object: [1,2,3]"
        case .missingRoom: return "required key missing: v3 without room"
        case .missingId: return "required key missing: v2 without id"
        case .wrongType: return "wrong type: \"roomName\": 42 (v3)"
        case .badBase64: return "base64 that does not decode: v2 fullRoomDataJSON \"!!!not base64\""
        case .roomNotJSON: return "raw room does not decode: v2 fullRoomDataJSON = base64 of \"not json\""
        case .nonFiniteNumber: return "number not finite: 1e999 in the first wall's transform (v3)"
        case .shortTransform: return "transform of 15 numbers on the first wall (v3)"
        case .negativeDimension: return "negative dimension: first wall width < 0 (v3)"
        case .unsupportedVersion: return "unsupported format version: formatVersion 9"
        case .duplicateId: return "duplicate id: repeats an earlier good record's id"
        }
    }
}
