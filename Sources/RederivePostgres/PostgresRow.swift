import CLibpq
import Foundation

/// One statement's result from libpq (binary format), freed with it.
final class PostgresResult: @unchecked Sendable {
    let handle: OpaquePointer
    /// Column index by name (the first column of a name wins, as postgres-nio's did).
    let columns: [String: Int]

    init(_ handle: OpaquePointer) {
        self.handle = handle
        var columns: [String: Int] = [:]
        for index in 0..<PQnfields(handle) {
            let name = String(cString: PQfname(handle, index))
            if columns[name] == nil { columns[name] = Int(index) }
        }
        self.columns = columns
    }

    deinit { PQclear(handle) }

    /// The rows.
    var rows: [PostgresRow] { (0..<Int(PQntuples(handle))).map { PostgresRow(result: self, index: Int32($0)) } }

    /// The affected row count of an INSERT, UPDATE, DELETE (0 for others).
    var affected: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }
}

/// A PostgreSQL type, by OID.
struct PostgresDataType: Equatable {
    var oid: UInt32
    static let bool = Self(oid: 16)
    static let bytea = Self(oid: 17)
    static let char = Self(oid: 18)
    static let name = Self(oid: 19)
    static let int8 = Self(oid: 20)
    static let int2 = Self(oid: 21)
    static let int4 = Self(oid: 23)
    static let text = Self(oid: 25)
    static let oidType = Self(oid: 26)
    static let json = Self(oid: 114)
    static let float4 = Self(oid: 700)
    static let float8 = Self(oid: 701)
    static let unknown = Self(oid: 705)
    static let bpchar = Self(oid: 1042)
    static let varchar = Self(oid: 1043)
    static let numeric = Self(oid: 1700)

    /// The type's SQL name, for a cast (the types a binary COPY is read as).
    var sqlName: String {
        switch self {
        case .bool: "bool"
        case .bytea: "bytea"
        case .int2: "int2"
        case .int4: "int4"
        case .int8: "int8"
        case .float8: "float8"
        case .text: "text"
        default: "oid \(oid)"
        }
    }
}

/// One value of a row: its type and its bytes in binary format (nil for NULL).
struct PostgresCell {
    var dataType: PostgresDataType
    var bytes: UnsafeRawBufferPointer?
    /// The column's name when the cell was made with it; else read from `result` when an
    /// error needs it (a name per cell read was an allocation per value on the derive's path).
    private var name: String?
    private var result: PostgresResult?
    private var index: Int32 = 0

    init(dataType: PostgresDataType, bytes: UnsafeRawBufferPointer?, column: String) {
        (self.dataType, self.bytes, self.name) = (dataType, bytes, column)
    }

    init(dataType: PostgresDataType, bytes: UnsafeRawBufferPointer?, result: PostgresResult, index: Int32) {
        (self.dataType, self.bytes, self.result, self.index) = (dataType, bytes, result, index)
    }

    /// The column's name, for messages.
    var column: String {
        if let name { return name }
        guard let result else { return "-" }
        return String(cString: PQfname(result.handle, index))
    }

    /// The value as `type`.
    func decode<T: PostgresDecodable>(_ type: T.Type = T.self) throws -> T { try T.decode(self) }
}

/// Why a value could not be read.
struct PostgresDecodingError: Error, CustomStringConvertible {
    var column: String
    var problem: String
    var description: String { "column \(column): \(problem)" }
}

/// Cells by column name: a result's row (`PostgresRow`), or a binary COPY's tuple
/// (`PostgresCopyDecoder.Row`), read by the same code.
protocol PostgresCells {
    /// The cell of column `name` (NULL of an unknown type when there is no such column).
    subscript(name: String) -> PostgresCell { get }
}

/// One row of a result.
struct PostgresRow: RandomAccessCollection, PostgresCells {
    let result: PostgresResult
    let index: Int32

    var startIndex: Int { 0 }
    var endIndex: Int { Int(PQnfields(result.handle)) }

    subscript(position: Int) -> PostgresCell {
        let column = Int32(position)
        let type = PostgresDataType(oid: PQftype(result.handle, column))
        guard PQgetisnull(result.handle, index, column) == 0 else {
            return PostgresCell(dataType: type, bytes: nil, result: result, index: column)
        }
        let length = Int(PQgetlength(result.handle, index, column))
        let bytes = UnsafeRawBufferPointer(start: PQgetvalue(result.handle, index, column), count: length)
        return PostgresCell(dataType: type, bytes: bytes, result: result, index: column)
    }

    /// The cell of column `name`.
    subscript(name: String) -> PostgresCell {
        guard let column = result.columns[name] else {
            return PostgresCell(dataType: .unknown, bytes: nil, column: name)
        }
        return self[column]
    }

    /// The first column's value as `type`.
    func decode<T: PostgresDecodable>(_ type: T.Type = T.self) throws -> T {
        guard !isEmpty else { throw PostgresDecodingError(column: "-", problem: "the row has no columns") }
        return try self[0].decode(T.self)
    }

    /// The row itself: cells by name (postgres-nio's shape, kept so the queries read alike).
    func makeRandomAccess() -> PostgresRow { self }

    /// The value of column `name`.
    func get<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard result.columns[name] != nil else {
            throw PostgresDecodingError(column: name, problem: "no such column in the result")
        }
        return try self[name].decode(T.self)
    }
}

/// A type a cell can be read as.
protocol PostgresDecodable {
    /// Reads `cell` (NULL throws unless the type is an Optional).
    static func decode(_ cell: PostgresCell) throws -> Self
}

extension PostgresCell {
    /// The bytes, or an error for NULL.
    func present() throws -> UnsafeRawBufferPointer {
        guard let bytes else { throw PostgresDecodingError(column: column, problem: "NULL where a value is needed") }
        return bytes
    }

    /// The bytes of a value of type `type` in place (valid while the result lives), or an error
    /// for NULL or another type.
    func bytes(of type: PostgresDataType) throws -> UnsafeBufferPointer<UInt8> {
        let bytes = try present()
        guard dataType == type else {
            throw PostgresDecodingError(column: column, problem: "type \(dataType.oid) is not \(type.sqlName)")
        }
        return bytes.assumingMemoryBound(to: UInt8.self)
    }

    /// `bytes(of:)`, nil for NULL.
    func optionalBytes(of type: PostgresDataType) throws -> UnsafeBufferPointer<UInt8>? {
        bytes == nil ? nil : try self.bytes(of: type)
    }

    func bigEndian<T: FixedWidthInteger>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer) throws -> T {
        guard bytes.count == MemoryLayout<T>.size else {
            throw PostgresDecodingError(column: column, problem: "\(bytes.count) bytes for a \(T.self)")
        }
        var value = T.zero
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: bytes) }
        return T(bigEndian: value)
    }

    /// An integer column (int2, int4, int8, oid, numeric without fraction).
    func integer() throws -> Int64 {
        let bytes = try present()
        switch dataType {
        case .int2: return Int64(try bigEndian(Int16.self, bytes))
        case .int4: return Int64(try bigEndian(Int32.self, bytes))
        case .int8: return try bigEndian(Int64.self, bytes)
        case .oidType: return Int64(try bigEndian(UInt32.self, bytes))
        case .numeric:
            let value = try numeric(bytes)
            guard let int = Int64(exactly: value) else {
                throw PostgresDecodingError(column: column, problem: "numeric \(value) is not an integer")
            }
            return int
        default: throw PostgresDecodingError(column: column, problem: "type \(dataType.oid) is not an integer")
        }
    }

    /// A floating-point column (float4, float8, any integer, numeric).
    func real() throws -> Double {
        let bytes = try present()
        switch dataType {
        case .float4: return Double(Float(bitPattern: try bigEndian(UInt32.self, bytes)))
        case .float8: return Double(bitPattern: try bigEndian(UInt64.self, bytes))
        case .numeric: return try numeric(bytes)
        default: return Double(try integer())
        }
    }

    // Binary numeric: digit count, weight, sign, scale, then base-10000 digits.
    private func numeric(_ bytes: UnsafeRawBufferPointer) throws -> Double {
        guard bytes.count >= 8 else { throw PostgresDecodingError(column: column, problem: "short numeric") }
        func short(_ at: Int) throws -> Int16 {
            try bigEndian(Int16.self, UnsafeRawBufferPointer(rebasing: bytes[at..<at + 2]))
        }
        let (count, weight, sign) = (Int(try short(0)), Int(try short(2)), try short(4))
        guard bytes.count >= 8 + 2 * count else {
            throw PostgresDecodingError(column: column, problem: "short numeric")
        }
        if sign == Int16(bitPattern: 0xC000) { return .nan }
        var value = 0.0
        for digit in 0..<count {
            value += Double(try short(8 + 2 * digit)) * pow(10_000, Double(weight - digit))
        }
        return sign == 0x4000 ? -value : value
    }
}

extension Int: PostgresDecodable {
    static func decode(_ cell: PostgresCell) throws -> Int { Int(try cell.integer()) }
}

extension Int64: PostgresDecodable {
    static func decode(_ cell: PostgresCell) throws -> Int64 { try cell.integer() }
}

extension Int32: PostgresDecodable {
    static func decode(_ cell: PostgresCell) throws -> Int32 {
        let value = try cell.integer()
        guard let int = Int32(exactly: value) else {
            throw PostgresDecodingError(column: cell.column, problem: "\(value) does not fit 32 bits")
        }
        return int
    }
}

extension Double: PostgresDecodable {
    static func decode(_ cell: PostgresCell) throws -> Double { try cell.real() }
}

extension Bool: PostgresDecodable {
    static func decode(_ cell: PostgresCell) throws -> Bool {
        let bytes = try cell.present()
        guard cell.dataType == .bool, bytes.count == 1 else {
            throw PostgresDecodingError(column: cell.column, problem: "type \(cell.dataType.oid) is not a boolean")
        }
        return bytes[0] != 0
    }
}

extension String: PostgresDecodable {
    static func decode(_ cell: PostgresCell) throws -> String {
        let bytes = try cell.present()
        switch cell.dataType {
        case .text, .varchar, .bpchar, .name, .char, .json, .unknown:
            return String(decoding: bytes, as: UTF8.self)
        case .int2, .int4, .int8, .oidType: return String(try cell.integer())
        case .float4, .float8: return String(try cell.real())
        default:
            throw PostgresDecodingError(column: cell.column, problem: "type \(cell.dataType.oid) is not text")
        }
    }
}

/// `bytea` as bytes.
extension Array: PostgresDecodable where Element == UInt8 {
    static func decode(_ cell: PostgresCell) throws -> [UInt8] {
        let bytes = try cell.present()
        guard cell.dataType == .bytea else {
            throw PostgresDecodingError(column: cell.column, problem: "type \(cell.dataType.oid) is not bytea")
        }
        return Array(bytes)
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    static func decode(_ cell: PostgresCell) throws -> Wrapped? {
        cell.bytes == nil ? nil : try Wrapped.decode(cell)
    }
}
