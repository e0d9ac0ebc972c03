import RederiveCore
import Foundation

/// A JSON value as the generator builds and writes it: objects keep their keys and are
/// written with sorted keys, numbers are written in Swift's shortest round-trip form, so
/// the output is byte-for-byte deterministic. Faster than `JSONSerialization` for records
/// of hundreds of KB, and able to write what it cannot (`1e999`, invalid UTF-8) via `raw`.
indirect enum GenJSON: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    /// String content already known to need no escaping (ASCII, no `"`, `\`, controls).
    case safeString([UInt8])
    case array([GenJSON])
    case object([String: GenJSON])
    /// Bytes written verbatim (for deliberately broken values).
    case raw([UInt8])

    /// Converts what `JSONSerialization` returned.
    static func from(foundation value: Any) throws -> GenJSON {
        switch value {
        case is NSNull:
            return .null
        case let number as NSNumber:
            if type(of: number) == booleanType { return .bool(number.boolValue) }
            let code = String(cString: number.objCType)
            if code == "d" || code == "f" { return .double(number.doubleValue) }
            return .int(number.intValue)
        case let string as String:
            return GenJSON.needsNoEscaping(string) ? .safeString(Array(string.utf8)) : .string(string)
        case let array as [Any]:
            return .array(try array.map { try GenJSON.from(foundation: $0) })
        case let object as [String: Any]:
            var out: [String: GenJSON] = [:]
            for (key, item) in object { out[key] = try GenJSON.from(foundation: item) }
            return .object(out)
        default:
            throw CorpusGeneratorError(message: "unexpected JSON value of type \(type(of: value))")
        }
    }

    private static let booleanType = type(of: NSNumber(value: true))

    static func needsNoEscaping(_ string: String) -> Bool {
        string.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x80 && $0 != 0x22 && $0 != 0x5C }
    }

    subscript(key: String) -> GenJSON? {
        get {
            if case .object(let o) = self { return o[key] }
            return nil
        }
        set {
            guard case .object(var o) = self else { return }
            self = .null  // release the storage so the dictionary is mutated in place
            o[key] = newValue
            self = .object(o)
        }
    }

    var arrayValue: [GenJSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    var doubleValue: Double? {
        switch self {
        case .double(let d): return d
        case .int(let i): return Double(i)
        default: return nil
        }
    }

    var stringValue: String? {
        switch self {
        case .string(let s): return s
        case .safeString(let b): return String(decoding: b, as: UTF8.self)
        default: return nil
        }
    }

    /// Appends the compact JSON text of this value.
    func write(to out: inout [UInt8]) {
        switch self {
        case .null:
            out.append(contentsOf: "null".utf8)
        case .bool(let b):
            out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i):
            out.append(contentsOf: String(i).utf8)
        case .double(let d):
            precondition(d.isFinite, "non-finite numbers are written with .raw")
            if d == d.rounded(), abs(d) < 1e15 {
                // Integral values as integers, the way the sample rooms spell them.
                out.append(contentsOf: String(Int(d)).utf8)
            } else {
                out.append(contentsOf: d.description.utf8)
            }
        case .string(let s):
            GenJSON.writeString(s, to: &out)
        case .safeString(let bytes):
            out.append(0x22)
            out.append(contentsOf: bytes)
            out.append(0x22)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, key) in object.keys.sorted().enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                GenJSON.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                object[key]!.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .raw(let bytes):
            out.append(contentsOf: bytes)
        }
    }

    /// The compact JSON bytes of this value.
    var bytes: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(0x22)
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        for byte in s.utf8 {
            switch byte {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
            case 0..<0x20:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }
}

/// Standard base64 (RFC 4648, with padding), fast enough for records of hundreds of KB.
enum Base64 {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ input: [UInt8]) -> [UInt8] {
        let outCount = (input.count + 2) / 3 * 4
        var out = [UInt8](repeating: 0, count: outCount)
        alphabet.withUnsafeBufferPointer { table in
            input.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    var i = 0, o = 0
                    let full = src.count / 3 * 3
                    while i < full {
                        let v = UInt32(src[i]) << 16 | UInt32(src[i + 1]) << 8 | UInt32(src[i + 2])
                        dst[o] = table[Int(v >> 18)]
                        dst[o + 1] = table[Int((v >> 12) & 63)]
                        dst[o + 2] = table[Int((v >> 6) & 63)]
                        dst[o + 3] = table[Int(v & 63)]
                        i += 3; o += 4
                    }
                    let rest = src.count - full
                    if rest > 0 {
                        var v = UInt32(src[i]) << 16
                        if rest == 2 { v |= UInt32(src[i + 1]) << 8 }
                        dst[o] = table[Int(v >> 18)]
                        dst[o + 1] = table[Int((v >> 12) & 63)]
                        dst[o + 2] = rest == 2 ? table[Int((v >> 6) & 63)] : UInt8(ascii: "=")
                        dst[o + 3] = UInt8(ascii: "=")
                    }
                }
            }
        }
        return out
    }
}
