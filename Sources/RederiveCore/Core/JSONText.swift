/// Small helpers to write JSON text by hand (hot paths avoid `JSONEncoder`).
public enum JSONText {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `value` as a JSON string literal (quotes, backslash and control characters escaped).
    public static func appendString(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in forEachEscapedPiece(of: bytes) { out.append(contentsOf: $0) } }
        out.append(UInt8(ascii: "\""))
    }

    /// Calls `body` with the pieces of `bytes` as a JSON string literal's content, in order: the
    /// runs between bytes to escape, each whole (one copy, not one append per byte), and the
    /// escape of each such byte (`appendEscaped`). Every writer of string literals goes through it.
    @inline(__always)
    static func forEachEscapedPiece(
        of bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        var start = 0
        for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            body(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            // Rare: the escape made into an array of its own, then handed over.
            var escaped: [UInt8] = []
            appendEscaped(byte, to: &escaped)
            escaped.withUnsafeBufferPointer(body)
            start = index + 1
        }
        body(UnsafeBufferPointer(rebasing: bytes[start...]))
    }

    /// Appends the escape of `byte`: a quote, a backslash or a control character.
    static func appendEscaped(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
            out.append(contentsOf: Array("\\u00".utf8))
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
    }

    /// `value` as a JSON string literal.
    public static func string(_ value: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count + 2)
        appendString(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `a` sorts before `b` by their UTF-8 bytes: the order of an object's keys in
    /// the summary JSON. Not `String`'s `<`, which compares canonical equivalents (normalising
    /// both sides on every comparison: seconds for keys made of 100,000 combining marks) and
    /// may order non-ASCII keys otherwise; for ASCII keys both orders are the same.
    public static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// A JSON number for a double: shortest form (a whole number without `.0`), `null` when
    /// not finite.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }
}
