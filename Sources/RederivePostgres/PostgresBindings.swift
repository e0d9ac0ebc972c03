import Foundation

/// A value sent as a statement parameter in PostgreSQL's binary format, with its type's OID
/// (the server then reads it as that type, as postgres-nio sent them).
protocol PostgresEncodable {
    /// The parameter's type OID (0: let the server infer it).
    var postgresOID: UInt32 { get }
    /// The value in binary format, nil for NULL.
    func postgresBytes() -> [UInt8]?
    /// Appends the value in binary format; false (nothing appended) for NULL.
    func appendPostgresValue(to bytes: inout [UInt8]) -> Bool
}

/// A type a one-dimensional array parameter can hold (`int8[]`, `text[]`, …).
protocol PostgresArrayElement: PostgresEncodable {
    /// The element type's OID.
    static var elementOID: UInt32 { get }
    /// The array type's OID.
    static var arrayOID: UInt32 { get }
    /// The length of the element's bytes in binary format, -1 for NULL (what the array
    /// writes before them).
    var postgresLength: Int32 { get }
    /// Appends the element's bytes in binary format (nothing for NULL), without the array of
    /// its own that `postgresBytes` makes: an array of 500 summaries has ~10,000 elements.
    func appendPostgresBytes(to bytes: inout [UInt8])
}

extension PostgresArrayElement {
    // The fallbacks make the element's bytes twice; every element type here writes its own
    // (an import batch binds 13 arrays of 500, a derive's 11).
    var postgresLength: Int32 { postgresBytes().map { Int32($0.count) } ?? -1 }
    func appendPostgresBytes(to bytes: inout [UInt8]) { bytes += postgresBytes() ?? [] }
}

/// The parameters of one statement (`$1`, `$2`, …), all in binary format, their bytes kept
/// in one buffer as they are encoded: libpq reads them from there, with no copy of each
/// value of its own (a derive batch binds ~500 KB).
struct PostgresBindings {
    private(set) var types: [UInt32] = []
    /// Every value's bytes, one after the other.
    private(set) var storage: [UInt8] = []
    /// Where each value is in `storage`, nil for NULL.
    private(set) var ranges: [Range<Int>?] = []

    /// How many parameters.
    var count: Int { ranges.count }

    /// Adds `value` as the next parameter.
    mutating func append(_ value: any PostgresEncodable) {
        types.append(value.postgresOID)
        let start = storage.count
        ranges.append(value.appendPostgresValue(to: &storage) ? start..<storage.count : nil)
    }

    /// Adds NULL of a type the server infers.
    mutating func appendNull() {
        types.append(0)
        ranges.append(nil)
    }

    /// Bindings from a list of values (nil binds NULL).
    static func of(_ values: (any PostgresEncodable)?...) -> PostgresBindings {
        var binds = PostgresBindings()
        for value in values {
            if let value { binds.append(value) } else { binds.appendNull() }
        }
        return binds
    }
}

extension PostgresEncodable {
    /// Appends the value in binary format; false (nothing appended) for NULL.
    func appendPostgresValue(to bytes: inout [UInt8]) -> Bool {
        guard let value = postgresBytes() else { return false }
        bytes += value
        return true
    }
}

/// Big-endian bytes of a fixed-width integer.
private func networkBytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

/// Appends the big-endian bytes of a fixed-width integer.
private func appendNetworkBytes<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
}

extension Int: PostgresArrayElement {
    var postgresOID: UInt32 { 20 }
    func postgresBytes() -> [UInt8]? { networkBytes(Int64(self)) }
    static var elementOID: UInt32 { 20 }
    static var arrayOID: UInt32 { 1016 }
    var postgresLength: Int32 { 8 }
    func appendPostgresBytes(to bytes: inout [UInt8]) { appendNetworkBytes(Int64(self), to: &bytes) }
}

extension Int64: PostgresArrayElement {
    var postgresOID: UInt32 { 20 }
    func postgresBytes() -> [UInt8]? { networkBytes(self) }
    static var elementOID: UInt32 { 20 }
    static var arrayOID: UInt32 { 1016 }
    var postgresLength: Int32 { 8 }
    func appendPostgresBytes(to bytes: inout [UInt8]) { appendNetworkBytes(self, to: &bytes) }
}

extension Int32: PostgresArrayElement {
    var postgresOID: UInt32 { 23 }
    func postgresBytes() -> [UInt8]? { networkBytes(self) }
    static var elementOID: UInt32 { 23 }
    static var arrayOID: UInt32 { 1007 }
    var postgresLength: Int32 { 4 }
    func appendPostgresBytes(to bytes: inout [UInt8]) { appendNetworkBytes(self, to: &bytes) }
}

extension Double: PostgresArrayElement {
    var postgresOID: UInt32 { 701 }
    func postgresBytes() -> [UInt8]? { networkBytes(bitPattern) }
    static var elementOID: UInt32 { 701 }
    static var arrayOID: UInt32 { 1022 }
    var postgresLength: Int32 { 8 }
    func appendPostgresBytes(to bytes: inout [UInt8]) { appendNetworkBytes(bitPattern, to: &bytes) }
}

extension String: PostgresArrayElement {
    var postgresOID: UInt32 { 25 }
    func postgresBytes() -> [UInt8]? { Array(utf8) }
    static var elementOID: UInt32 { 25 }
    static var arrayOID: UInt32 { 1009 }
    var postgresLength: Int32 { Int32(utf8.count) }
    func appendPostgresBytes(to bytes: inout [UInt8]) { bytes.append(contentsOf: utf8) }
}

extension Bool: PostgresArrayElement {
    var postgresOID: UInt32 { 16 }
    func postgresBytes() -> [UInt8]? { [self ? 1 : 0] }
    static var elementOID: UInt32 { 16 }
    static var arrayOID: UInt32 { 1000 }
    var postgresLength: Int32 { 1 }
    func appendPostgresBytes(to bytes: inout [UInt8]) { bytes.append(self ? 1 : 0) }
}

/// Bytes bound as `bytea`.
extension Data: PostgresArrayElement {
    var postgresOID: UInt32 { 17 }
    func postgresBytes() -> [UInt8]? { Array(self) }
    static var elementOID: UInt32 { 17 }
    static var arrayOID: UInt32 { 1001 }
    var postgresLength: Int32 { Int32(count) }
    func appendPostgresBytes(to bytes: inout [UInt8]) { bytes.append(contentsOf: self) }
}

extension Optional: PostgresEncodable where Wrapped: PostgresArrayElement {
    var postgresOID: UInt32 { Wrapped.elementOID }
    func postgresBytes() -> [UInt8]? { self?.postgresBytes() }
}

extension Optional: PostgresArrayElement where Wrapped: PostgresArrayElement {
    static var elementOID: UInt32 { Wrapped.elementOID }
    static var arrayOID: UInt32 { Wrapped.arrayOID }
    var postgresLength: Int32 { self?.postgresLength ?? -1 }
    func appendPostgresBytes(to bytes: inout [UInt8]) { self?.appendPostgresBytes(to: &bytes) }
}

/// A one-dimensional array (binary array format: dimensions, a NULL flag, the element type,
/// then each element as its length and bytes; -1 for NULL).
extension Array: PostgresEncodable where Element: PostgresArrayElement {
    var postgresOID: UInt32 { Element.arrayOID }

    func postgresBytes() -> [UInt8]? {
        var bytes: [UInt8] = []
        _ = appendPostgresValue(to: &bytes)
        return bytes
    }

    func appendPostgresValue(to bytes: inout [UInt8]) -> Bool {
        // Lengths first (they size the buffer and say whether a NULL is present), then every
        // element written straight into it.
        let lengths = map(\.postgresLength)
        bytes.reserveCapacity(bytes.count + 20 + lengths.reduce(0) { $0 + 4 + Swift.max(Int($1), 0) })
        appendNetworkBytes(Int32(1), to: &bytes)
        appendNetworkBytes(Int32(lengths.contains(-1) ? 1 : 0), to: &bytes)
        appendNetworkBytes(Element.elementOID, to: &bytes)
        appendNetworkBytes(Int32(count), to: &bytes)
        appendNetworkBytes(Int32(1), to: &bytes)
        for (element, length) in zip(self, lengths) {
            appendNetworkBytes(length, to: &bytes)
            element.appendPostgresBytes(to: &bytes)
        }
        return true
    }
}

extension PostgresBindings {
    /// `value` as a SQL literal, for a statement that takes no parameters (a COPY): numbers
    /// and booleans as they are, text as an escape string (read the same whatever
    /// `standard_conforming_strings` says; a NUL, which text cannot hold, as `\000`, which
    /// the server refuses, never as a byte that would cut the statement short).
    static func literal(_ value: any PostgresEncodable) -> String {
        guard let bytes = value.postgresBytes() else { return "NULL" }
        let bits = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        switch value.postgresOID {
        case Int64.elementOID: return String(Int64(bitPattern: bits))
        case Int32.elementOID: return String(Int32(truncatingIfNeeded: bits))
        case Bool.elementOID: return bits == 0 ? "FALSE" : "TRUE"
        case Double.elementOID: return "'\(Double(bitPattern: bits))'::float8"
        case String.elementOID:
            var text = "E'"
            for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
                switch scalar {
                case "\\": text += "\\\\"
                case "'": text += "''"
                case "\0": text += "\\000"
                default: text.unicodeScalars.append(scalar)
                }
            }
            return text + "'"
        default:
            preconditionFailure("a parameter of type \(value.postgresOID) is not written as a literal")
        }
    }
}
