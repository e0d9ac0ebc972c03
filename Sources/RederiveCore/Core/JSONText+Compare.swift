#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension JSONText {
    /// Whether `text`'s UTF-8 is exactly `bytes`: one `memcmp` over contiguous storage (a stored
    /// summary against a new one, once per derived record), not a byte-by-byte generic walk.
    public static func sameBytes(_ text: String, _ bytes: [UInt8]) -> Bool {
        var text = text
        return text.withUTF8 { sameBytes($0, bytes) }
    }

    /// Whether `utf8` holds exactly `bytes`.
    static func sameBytes(_ utf8: UnsafeBufferPointer<UInt8>, _ bytes: [UInt8]) -> Bool {
        guard utf8.count == bytes.count else { return false }
        guard let a = utf8.baseAddress, !bytes.isEmpty else { return true }
        return bytes.withUnsafeBufferPointer { memcmp(a, $0.baseAddress!, utf8.count) == 0 }
    }
}
