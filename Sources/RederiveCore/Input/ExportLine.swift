import CRoomJSON

/// One line of an export: its 1-based number and its bytes without the line terminator.
///
/// The bytes are either an array of their own (with `RJ_PADDING` spare capacity, so the JSON
/// parser reads them in place) or, as a reader returns them, a span of the buffer it decoded
/// them into (no copy; the parser copies a span with fewer than `RJ_PADDING` bytes after it).
public struct ExportLine: Sendable {
    /// 1-based line number in the file.
    public var number: Int
    /// True when the line was longer than the reader's limit; its bytes are then empty.
    public var oversized: Bool
    private var array: [UInt8]
    private var buffer: LineBuffer?
    private var start = 0
    private var count = 0
    private var readable = 0

    /// The line's bytes (no `\n`, no trailing `\r`): a copy when they lie in a reader's buffer.
    public var bytes: [UInt8] {
        get {
            guard let buffer else { return array }
            return Array(UnsafeBufferPointer(start: buffer.base + start, count: count))
        }
        set {
            array = newValue
            buffer = nil
        }
    }

    /// How many bytes the line holds (`bytes.count`, without the copy).
    public var byteCount: Int { buffer == nil ? array.count : count }

    /// Creates a line.
    public init(number: Int, bytes: [UInt8], oversized: Bool = false) {
        self.number = number
        self.array = bytes
        self.oversized = oversized
    }

    /// The bytes `start ..< start + count` of `buffer`, of which `readable` bytes from `start`
    /// may be read (written, and never written again).
    init(number: Int, buffer: LineBuffer, start: Int, count: Int, readable: Int) {
        precondition(start >= 0 && count >= 0 && readable >= count && start + readable <= buffer.capacity)
        (self.number, self.oversized, self.array) = (number, false, [])
        (self.buffer, self.start, self.count, self.readable) = (buffer, start, count, readable)
    }

    /// `body` over the bytes and how many bytes are readable from their start (their padding).
    public func withPaddedBytes<T>(
        _ body: (_ bytes: UnsafeBufferPointer<UInt8>, _ readable: Int) throws -> T
    ) rethrows
        -> T
    {
        guard let buffer else { return try array.withUnsafeBufferPointer { try body($0, array.capacity) } }
        return try withExtendedLifetime(buffer) {
            try body(UnsafeBufferPointer(start: buffer.base + start, count: count), readable)
        }
    }
}
