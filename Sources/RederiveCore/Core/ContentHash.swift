import CRoomJSON

/// A 128-bit non-cryptographic content hash (two XXH64 lanes), for change detection and
/// deterministic ids.
public struct ContentHash: Sendable, Equatable, Hashable {
    /// The 16 hash bytes.
    public let bytes: [UInt8]

    /// Hashes `data`.
    public static func digest(_ data: [UInt8]) -> ContentHash {
        data.withUnsafeBufferPointer { digest($0) }
    }

    /// Hashes a buffer.
    public static func digest(_ data: UnsafeBufferPointer<UInt8>) -> ContentHash {
        var out: (UInt64, UInt64) = (0, 0)
        withUnsafeMutablePointer(to: &out) { ptr in
            ptr.withMemoryRebound(to: UInt64.self, capacity: 2) { rj_hash128(data.baseAddress, data.count, 0, $0) }
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(16)
        withUnsafeBytes(of: out.0.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: out.1.bigEndian) { bytes.append(contentsOf: $0) }
        return ContentHash(bytes: bytes)
    }

    /// Lowercase hex text.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(32)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
