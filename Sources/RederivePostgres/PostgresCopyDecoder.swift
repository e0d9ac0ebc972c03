/// Reads the tuples of a binary `COPY … TO STDOUT (FORMAT binary)` from its bytes, however
/// they arrive in pieces: the header (the 11-byte signature, 32-bit flags, a header extension
/// of the length it gives), then per tuple a 16-bit field count and per field a 32-bit length
/// (-1: NULL) and that many bytes, then a field count of -1. The format carries no types:
/// the caller names each column and its type, and the cells are read as a result's are
/// (`PostgresCell`).
struct PostgresCopyDecoder {
    /// A column of the copied query: its name and the type it is sent as.
    struct Column {
        var name: String
        var type: PostgresDataType
    }

    /// One tuple, valid while the closure given to `next` runs.
    struct Row: PostgresCells {
        let bytes: UnsafeRawBufferPointer
        /// Each field's bytes in `bytes` (nil: NULL).
        let fields: [Range<Int>?]
        let columns: [Column]
        let index: [String: Int]

        subscript(name: String) -> PostgresCell {
            guard let column = index[name] else { return PostgresCell(dataType: .unknown, bytes: nil, column: name) }
            let cell = fields[column].map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }
            return PostgresCell(dataType: columns[column].type, bytes: cell, column: name)
        }
    }

    /// Bytes that are not a binary COPY of the expected columns.
    struct FormatError: Error, CustomStringConvertible {
        var problem: String
        var description: String { "binary COPY data: \(problem)" }
    }

    private static let signature: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00]

    let columns: [Column]
    private let index: [String: Int]
    /// Bytes received and not yet decoded start at `offset`.
    private var buffer: [UInt8] = []
    private var offset = 0
    private var headerRead = false
    /// Whether the trailer (a field count of -1) was read: no tuple follows.
    private(set) var finished = false

    init(columns: [Column]) {
        self.columns = columns
        var index: [String: Int] = [:]
        for (position, column) in columns.enumerated() where index[column.name] == nil {
            index[column.name] = position
        }
        self.index = index
    }

    /// Adds the next bytes of the COPY.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        // What was decoded is dropped first (a tuple usually arrives whole: nothing is left).
        if offset == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else if offset > 0 {
            buffer.removeFirst(offset)
        }
        offset = 0
        buffer.append(contentsOf: bytes)
    }

    /// Decodes the next complete tuple with `body`; nil when more bytes are needed, or after
    /// the trailer.
    mutating func next<T>(_ body: (Row) throws -> T) throws -> T? {
        guard !finished else { return nil }
        if !headerRead {
            let fixed = Self.signature.count + 8
            guard buffer.count - offset >= fixed else { return nil }
            guard buffer[offset..<offset + Self.signature.count].elementsEqual(Self.signature) else {
                throw FormatError(problem: "no PGCOPY signature")
            }
            let flags = UInt32(bitPattern: int32(at: offset + Self.signature.count))
            // Bit 16: OIDs included (never, since PostgreSQL 12); 17-31: must be understood.
            guard flags & 0xFFFF_0000 == 0 else { throw FormatError(problem: "unknown flags \(flags)") }
            let extensionLength = Int(int32(at: offset + Self.signature.count + 4))
            guard extensionLength >= 0 else { throw FormatError(problem: "negative header extension length") }
            guard buffer.count - offset >= fixed + extensionLength else { return nil }
            offset += fixed + extensionLength
            headerRead = true
        }
        let (total, columns, index, start) = (buffer.count, columns, index, offset)
        var position = start
        var trailer = false
        // Parsed in place; `offset` moves past a tuple only once it is whole.
        let value = try buffer.withUnsafeBytes { bytes -> T? in
            func int32(_ at: Int) -> Int {
                Int(Int32(bitPattern: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).bigEndian))
            }
            guard total - position >= 2 else { return nil }
            let count = Int(Int16(bitPattern: bytes.loadUnaligned(fromByteOffset: position, as: UInt16.self).bigEndian))
            if count == -1 {
                position += 2
                trailer = true
                return nil
            }
            guard count == columns.count else {
                throw FormatError(problem: "a tuple of \(count) fields where \(columns.count) are read")
            }
            position += 2
            var fields: [Range<Int>?] = []
            fields.reserveCapacity(count)
            for _ in 0..<count {
                guard total - position >= 4 else {
                    position = start
                    return nil
                }
                let length = int32(position)
                position += 4
                if length == -1 {
                    fields.append(nil)
                    continue
                }
                guard length >= 0 else { throw FormatError(problem: "field length \(length)") }
                guard total - position >= length else {
                    position = start
                    return nil
                }
                fields.append(position..<position + length)
                position += length
            }
            return try body(Row(bytes: bytes, fields: fields, columns: columns, index: index))
        }
        offset = position
        finished = trailer
        return value
    }

    /// Checks that the COPY ended where it should: after the trailer, nothing left over.
    func checkEnded() throws {
        guard finished else { throw FormatError(problem: "the data ended before its trailer") }
        guard offset == buffer.count else {
            throw FormatError(problem: "\(buffer.count - offset) bytes after the trailer")
        }
    }

    private func int32(at position: Int) -> Int32 {
        var value: UInt32 = 0
        for byte in buffer[position..<position + 4] { value = value << 8 | UInt32(byte) }
        return Int32(bitPattern: value)
    }
}
