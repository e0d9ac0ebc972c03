/// 64-bit little-endian words in byte arrays: how the plan check's spill (`DeriveSpill`) and the
/// summaries in it (`RoomSummary.appendBinary`) write numbers and lengths.
package enum LittleEndian {
    /// Appends `value`'s 8 bytes to `out`.
    package static func append(_ value: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    /// The word at `offset` in `bytes` (`offset` moved past it), nil when fewer than 8 bytes are left.
    package static func word(_ bytes: [UInt8], at offset: inout Int) -> UInt64? {
        guard offset >= 0, bytes.count - offset >= 8 else { return nil }
        var value: UInt64 = 0
        for i in (0..<8).reversed() { value = value << 8 | UInt64(bytes[offset + i]) }
        offset += 8
        return value
    }
}
