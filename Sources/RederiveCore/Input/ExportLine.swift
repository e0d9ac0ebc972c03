import CRoomJSON

/// One line of an export: its 1-based number and its bytes without the line terminator.
///
/// `bytes` keeps `RJ_PADDING` spare capacity so the JSON parser can read it in place.
public struct ExportLine: Sendable {
    /// 1-based line number in the file.
    public var number: Int
    /// The line's bytes (no `\n`, no trailing `\r`).
    public var bytes: [UInt8]
    /// True when the line was longer than the reader's limit; `bytes` is then empty.
    public var oversized: Bool

    /// Creates a line.
    public init(number: Int, bytes: [UInt8], oversized: Bool = false) {
        self.number = number
        self.bytes = bytes
        self.oversized = oversized
    }
}
