import CRoomJSON

/// Record ids: canonical UUID text, and the deterministic content ids of version-1 records.
public enum RecordIdentity {
    /// The id of a version-1 record: a UUID (version 8, "custom") made from a 128-bit hash
    /// of its name, timestamp and raw room, so the same export always yields the same ids.
    public static func contentID(roomName: String, timestamp: Double, roomData: [UInt8]) -> String {
        var material: [UInt8] = Array("rederive.v1-id\u{0}".utf8)
        material.append(contentsOf: roomName.utf8)
        material.append(0)
        withUnsafeBytes(of: timestamp.bitPattern.littleEndian) { material.append(contentsOf: $0) }
        material.append(0)
        material.append(contentsOf: roomData)
        var bytes = ContentHash.digest(material).bytes
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return uuidString(bytes)
    }

    /// The canonical (uppercase) form of a UUID string, or nil when `text` is not one.
    public static func canonicalUUID(_ text: String) -> String? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (i, c) in utf8.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == UInt8(ascii: "-") else { return nil }
                out.append(c)
            } else {
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "F"): out.append(c)
                case UInt8(ascii: "a")...UInt8(ascii: "f"): out.append(c - 32)
                default: return nil
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func uuidString(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (i, b) in bytes.prefix(16).enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
