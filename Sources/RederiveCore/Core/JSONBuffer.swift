/// The bytes of a JSON text being written by hand: a buffer that grows by doubling, appended to
/// with one capacity check per append. An array's append also checks that its storage is not
/// shared, and a generic append of a sequence goes through an iterator; the summary's JSON, some
/// sixty appends a record, spent more in those checks than in its digits.
struct JSONBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// How many bytes are written.
    private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes before it grows.
    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written, as an array of exactly that length.
    func bytes() -> [UInt8] {
        [UInt8](UnsafeBufferPointer(start: base, count: count))
    }

    /// Forgets what was written, keeping the room it took: a buffer reused record after record.
    mutating func removeAll() { count = 0 }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    private mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: count)
        base.deallocate()
        (base, capacity) = (grown, newCapacity)
    }

    /// Appends one byte.
    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Appends `bytes`.
    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Appends literal text.
    @inline(__always)
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    /// Appends `value`'s decimal digits, most significant first (at least one).
    mutating func appendDigits(_ value: UInt64) {
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        reserve(digits)
        var n = value
        var at = count + digits
        repeat {
            at -= 1
            base[at] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: n % 10)
            n /= 10
        } while n > 0
        count += digits
    }

    /// Appends a whole number as `String(value)` writes it.
    mutating func appendInt(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        appendDigits(UInt64(value.magnitude))
    }

    /// Appends `value` as a JSON string literal, as `JSONText.appendString` writes it.
    mutating func appendString(_ value: String) {
        append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in JSONText.forEachEscapedPiece(of: bytes) { append($0) } }
        append(UInt8(ascii: "\""))
    }
}
