/// A small, fast, fully deterministic pseudo-random generator (Steele, Lea & Flood's
/// SplitMix64). The same seed always yields the same sequence on every platform, which is
/// what the corpus generator needs; it is not for anything security related.
public struct SplitMix64: Sendable {
    private var state: UInt64

    /// Starts the sequence at `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// Starts an independent stream for item `index` of a run seeded with `seed`, so items
    /// can be generated from their index alone.
    public init(seed: UInt64, stream index: UInt64) {
        state = SplitMix64.mix(seed ^ SplitMix64.mix(index &+ 0x632B_E59B_D9B4_E019))
    }

    /// The SplitMix64 finaliser: a bijective 64-bit mix.
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    /// A uniform integer in `0..<bound` (`bound` > 0), by multiply-high (Lemire).
    public mutating func next(below bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive")
        return Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A uniform double in `[0, 1)` with 53 random bits.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniform double in `range`.
    public mutating func next(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * nextUnit()
    }

    /// Shuffles `array` in place (Fisher-Yates), independently of the standard library's
    /// algorithm so the order never changes with the toolchain.
    public mutating func shuffle<T>(_ array: inout [T]) {
        guard array.count > 1 else { return }
        for i in stride(from: array.count - 1, to: 0, by: -1) {
            let j = next(below: i + 1)
            if i != j { array.swapAt(i, j) }
        }
    }

    /// An RFC 4122 version-4 UUID string in upper case, built from the next 128 bits.
    public mutating func uuidString() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        let a = next(), b = next()
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * UInt64(i)))
            bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * UInt64(i)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
