/// An incremental 64-bit FNV-1a hash: a cheap digest of a stream of values (a plan's list
/// of changes), not for security.
public struct RunningHash: Sendable, Equatable {
    private var state: UInt64 = 0xcbf2_9ce4_8422_2325

    /// An empty digest.
    public init() {}

    /// Adds bytes.
    public mutating func add<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        for b in bytes {
            state ^= UInt64(b)
            state &*= 0x0000_0100_0000_01b3
        }
    }

    /// Adds an integer (8 bytes, little-endian).
    public mutating func add(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { add($0) }
    }

    /// Lowercase hex of the digest so far.
    public var hex: String {
        let text = String(state, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
