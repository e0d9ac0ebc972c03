import XCTest

@testable import RederivePostgres

/// The binary COPY decoder (`PostgresCopyDecoder`) on bytes written here by the format's
/// rules: every tuple comes out whatever pieces the bytes arrive in, NULL stays NULL, and
/// bytes that are not such a COPY are refused, not read as something else.
final class PostgresCopyDecoderTests: XCTestCase {
    private static let columns: [PostgresCopyDecoder.Column] = [
        .init(name: "seq", type: .int8), .init(name: "name", type: .text), .init(name: "blob", type: .bytea),
        .init(name: "version", type: .int4), .init(name: "area", type: .float8),
    ]

    private struct Tuple: Equatable {
        var seq: Int64
        var name: String?
        var blob: [UInt8]?
        var version: Int
        var area: Double
    }

    private static let tuples = [
        Tuple(seq: 1, name: "Küche 🏠 \u{2028}", blob: [0, 1, 2, 255], version: 3, area: 12.5),
        Tuple(seq: 2, name: nil, blob: nil, version: -7, area: -0.25),
        Tuple(seq: Int64.max, name: "", blob: [], version: Int(Int32.min), area: 1e300),
        Tuple(seq: 4, name: "big", blob: (0..<70_000).map { UInt8($0 % 251) }, version: 0, area: 0),
    ]

    /// The COPY of `tuples`, as the server sends it; `extensionBytes` in its header.
    private static func copyBytes(_ tuples: [Tuple], extensionBytes: [UInt8] = []) -> [UInt8] {
        var out = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00]
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.bigEndian) { out += $0 } }
        func field(_ bytes: [UInt8]?) {
            guard let bytes else { return put(Int32(-1)) }
            put(Int32(bytes.count))
            out += bytes
        }
        put(Int32(0))
        put(Int32(extensionBytes.count))
        out += extensionBytes
        for tuple in tuples {
            put(Int16(5))
            field(withUnsafeBytes(of: tuple.seq.bigEndian) { Array($0) })
            field(tuple.name.map { Array($0.utf8) })
            field(tuple.blob)
            field(withUnsafeBytes(of: Int32(tuple.version).bigEndian) { Array($0) })
            field(withUnsafeBytes(of: tuple.area.bitPattern.bigEndian) { Array($0) })
        }
        put(Int16(-1))
        return out
    }

    /// Feeds `bytes` in pieces of `piece` bytes, decoding after each; returns the tuples.
    private func decode(_ bytes: [UInt8], piece: Int) throws -> [Tuple] {
        var decoder = PostgresCopyDecoder(columns: Self.columns)
        var read: [Tuple] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + piece)
            bytes[start..<end].withUnsafeBytes { decoder.append($0) }
            start = end
            while let tuple = try decoder.next({ row in
                Tuple(
                    seq: try row["seq"].decode(Int64.self), name: try row["name"].decode(String?.self),
                    blob: try row["blob"].decode([UInt8]?.self), version: try row["version"].decode(Int.self),
                    area: try row["area"].decode(Double.self))
            }) {
                read.append(tuple)
            }
        }
        try decoder.checkEnded()
        return read
    }

    func testEveryTupleComesOutWhateverPiecesTheBytesArriveIn() throws {
        let bytes = Self.copyBytes(Self.tuples)
        for piece in [1, 2, 3, 7, 4096, bytes.count] {
            XCTAssertEqual(try decode(bytes, piece: piece), Self.tuples, "pieces of \(piece) bytes")
        }
        // A header extension is skipped, whatever it holds.
        XCTAssertEqual(try decode(Self.copyBytes(Self.tuples, extensionBytes: [9, 9, 9]), piece: 5), Self.tuples)
        XCTAssertEqual(try decode(Self.copyBytes([]), piece: 1), [])
    }

    func testBytesThatAreNotSuchACopyAreRefused() {
        let good = Self.copyBytes(Self.tuples)
        var badSignature = good
        badSignature[5] = UInt8(ascii: "X")
        XCTAssertThrowsError(try decode(badSignature, piece: 64))
        var oids = good
        oids[12] = 1  // flags bit 16: OIDs included
        XCTAssertThrowsError(try decode(oids, piece: 64))
        var fieldCount = good
        fieldCount[20] = 4  // the first tuple claims 4 fields where 5 are read
        XCTAssertThrowsError(try decode(fieldCount, piece: 64))
        XCTAssertThrowsError(try decode(Array(good.dropLast(2)), piece: 64), "no trailer")
        XCTAssertThrowsError(try decode(Array(good.dropLast(9)), piece: 64), "cut inside a tuple")
        XCTAssertThrowsError(try decode(good + [0], piece: 64), "bytes after the trailer")
    }

    func testAValueIsWrittenAsALiteralTheServerReadsBackAsIs() {
        XCTAssertEqual(PostgresBindings.literal(Int64(-42)), "-42")
        XCTAssertEqual(PostgresBindings.literal(Int32(-7)), "-7")
        XCTAssertEqual(PostgresBindings.literal(Int.max), "\(Int.max)")
        XCTAssertEqual(PostgresBindings.literal(true), "TRUE")
        XCTAssertEqual(PostgresBindings.literal("it's a \\ back\u{0}slash"), #"E'it''s a \\ back\000slash'"#)
        XCTAssertEqual(PostgresBindings.literal(String?.none), "NULL")
    }
}
