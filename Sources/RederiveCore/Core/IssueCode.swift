/// A stable, machine-readable reason why a record (or a file) was skipped, e.g.
/// `invalid_json`. Typed constants in the style of GRDB's `ResultCode`: every code the
/// tool can emit is declared here once, listed by stage in `IssueCode.byStage`, and the
/// README's code table is checked against that list by a test.
public struct IssueCode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The code as written in reports, the store and logs.
    public let rawValue: String

    /// A code from its text (codes read back from a store or report).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The code's text.
    public var description: String { rawValue }

    /// Orders codes by their text.
    public static func < (a: IssueCode, b: IssueCode) -> Bool { a.rawValue < b.rawValue }

    // read: the file or the line could not be read.
    /// The file is not a `.jsonl` or `.jsonl.zst` export.
    public static let unsupportedFileType = IssueCode(rawValue: "unsupported_file_type")
    /// The file could not be opened or read (missing, a directory, permissions, I/O).
    public static let fileUnreadable = IssueCode(rawValue: "file_unreadable")
    /// A zstd frame ends before its declared end.
    public static let truncatedFrame = IssueCode(rawValue: "truncated_frame")
    /// A zstd frame is corrupt.
    public static let damagedFrame = IssueCode(rawValue: "damaged_frame")
    /// A line longer than the reader's limit.
    public static let lineTooLong = IssueCode(rawValue: "line_too_long")

    // parse: the line as a record.
    /// Not valid JSON (including malformed numbers and duplicate keys).
    public static let invalidJSON = IssueCode(rawValue: "invalid_json")
    /// Bytes that are not UTF-8.
    public static let invalidUTF8 = IssueCode(rawValue: "invalid_utf8")
    /// The line is JSON but not an object.
    public static let notAnObject = IssueCode(rawValue: "not_an_object")
    /// A required key is missing.
    public static let missingKey = IssueCode(rawValue: "missing_key")
    /// A key has a value of the wrong JSON type.
    public static let wrongType = IssueCode(rawValue: "wrong_type")
    /// The version-1 `roomData` is not valid base64.
    public static let invalidBase64 = IssueCode(rawValue: "invalid_base64")
    /// The id is not a UUID.
    public static let invalidID = IssueCode(rawValue: "invalid_id")
    /// The timestamp is out of range or not ISO 8601.
    public static let invalidTimestamp = IssueCode(rawValue: "invalid_timestamp")
    /// A number too large to be finite.
    public static let nonFiniteNumber = IssueCode(rawValue: "non_finite_number")

    // upgrade: the record towards the current format.
    /// A `formatVersion` this build does not know.
    public static let unsupportedFormatVersion = IssueCode(rawValue: "unsupported_format_version")
    /// An id already seen earlier in the same file (the first is kept).
    public static let duplicateID = IssueCode(rawValue: "duplicate_id")

    // decode: the raw room.
    /// The raw room is not valid JSON.
    public static let invalidRoomJSON = IssueCode(rawValue: "invalid_room_json")
    /// The raw room is JSON but not an object.
    public static let roomNotObject = IssueCode(rawValue: "room_not_object")
    /// A surface's transform is not 16 numbers.
    public static let badTransform = IssueCode(rawValue: "bad_transform")
    /// A surface's dimensions are not 3 numbers.
    public static let badDimensions = IssueCode(rawValue: "bad_dimensions")
    /// A surface dimension is negative.
    public static let negativeDimension = IssueCode(rawValue: "negative_dimension")
    /// The room has more walls, objects or polygon points than the documented limits.
    public static let roomTooLarge = IssueCode(rawValue: "room_too_large")
    /// The decoder failed in a way it should not (a bug: please report it).
    public static let internalError = IssueCode(rawValue: "internal_error")

    // derive: the summary.
    /// A summary value is not finite (after any step, rounding included).
    public static let nonFiniteValue = IssueCode(rawValue: "non_finite_value")
    /// A summary value that cannot be negative is.
    public static let negativeValue = IssueCode(rawValue: "negative_value")

    /// Every code each stage can emit, in the README's order.
    public static let byStage: [(stage: RecordIssue.Stage, codes: [IssueCode])] = [
        (.read, [.unsupportedFileType, .fileUnreadable, .truncatedFrame, .damagedFrame, .lineTooLong]),
        (
            .parse,
            [
                .invalidJSON, .invalidUTF8, .notAnObject, .missingKey, .wrongType, .invalidBase64, .invalidID,
                .invalidTimestamp, .nonFiniteNumber,
            ]
        ),
        (.upgrade, [.unsupportedFormatVersion, .duplicateID]),
        (
            .decode,
            [
                .invalidRoomJSON, .invalidUTF8, .roomNotObject, .missingKey, .wrongType, .badTransform,
                .badDimensions, .negativeDimension, .nonFiniteNumber, .roomTooLarge, .internalError,
            ]
        ),
        (.derive, [.nonFiniteValue, .negativeValue]),
    ]
}
