import XCTest

@testable import RederivePostgres

/// The binary array format parameters are sent in, byte for byte: dimensions, a NULL flag,
/// the element type, the length and lower bound, then each element's length and bytes.
final class PostgresBindingsTests: XCTestCase {
    private func int32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

    private func header(null: Bool, oid: Int32, count: Int32) -> [UInt8] {
        int32(1) + int32(null ? 1 : 0) + int32(oid) + int32(count) + int32(1)
    }

    func testATextArrayWritesEachElementsLengthAndBytesAndNullAsMinusOne() {
        let array: [String?] = ["ab", nil, "", "é"]
        let expected =
            header(null: true, oid: 25, count: 4) + int32(2) + Array("ab".utf8) + int32(-1) + int32(0)
            + int32(2) + [0xC3, 0xA9]
        XCTAssertEqual(array.postgresBytes(), expected)
        XCTAssertEqual(array.postgresOID, 1009)
    }

    func testNumberArraysAreBigEndianEightBytesEach() {
        let integers: [Int64] = [1, -2]
        XCTAssertEqual(
            integers.postgresBytes(),
            header(null: false, oid: 20, count: 2) + int32(8) + [0, 0, 0, 0, 0, 0, 0, 1] + int32(8)
                + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE])
        let reals: [Double?] = [1.5, nil]
        XCTAssertEqual(
            reals.postgresBytes(),
            header(null: true, oid: 701, count: 2) + int32(8)
                + withUnsafeBytes(of: (1.5).bitPattern.bigEndian) {
                    Array($0)
                } + int32(-1))
        XCTAssertEqual(
            [Int32(7)].postgresBytes(), header(null: false, oid: 23, count: 1) + int32(4) + int32(7))
        XCTAssertEqual([Int64]().postgresBytes(), header(null: false, oid: 20, count: 0))
    }

    /// Int (as int8), bool and bytea elements write their own bytes (no array of each), the
    /// same bytes as their values alone.
    func testIntBoolAndByteaArraysWriteEachElementOnce() {
        let integers: [Int?] = [3, nil, -1]
        XCTAssertEqual(
            integers.postgresBytes(),
            header(null: true, oid: 20, count: 3) + int32(8) + [0, 0, 0, 0, 0, 0, 0, 3] + int32(-1) + int32(8)
                + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertEqual(integers.postgresOID, 1016)
        XCTAssertEqual(
            [true, false].postgresBytes(), header(null: false, oid: 16, count: 2) + int32(1) + [1] + int32(1) + [0])
        let bytes: [Data?] = [Data([0, 0xFF]), nil, Data()]
        XCTAssertEqual(
            bytes.postgresBytes(), header(null: true, oid: 17, count: 3) + int32(2) + [0, 0xFF] + int32(-1) + int32(0))
        for value in [Int.max, Int.min, 0] {
            XCTAssertEqual([value].postgresBytes()?.suffix(8), value.postgresBytes()?[...])
        }
    }
}

/// Bindings keep every value in one buffer, in order, with NULL taking no bytes.
final class PostgresBindingsStorageTests: XCTestCase {
    func testValuesFollowEachOtherInOneBufferAndNullHasNoRange() {
        let binds = PostgresBindings.of(Int64(5), nil, "ab", [Int32(7)])
        XCTAssertEqual(binds.count, 4)
        XCTAssertEqual(binds.types, [20, 0, 25, 1007])
        let bytes = binds.ranges.map { $0.map { Array(binds.storage[$0]) } }
        XCTAssertEqual(bytes[0], [0, 0, 0, 0, 0, 0, 0, 5])
        XCTAssertNil(bytes[1])
        XCTAssertEqual(bytes[2], Array("ab".utf8))
        XCTAssertEqual(bytes[3], [Int32(7)].postgresBytes())
        XCTAssertEqual(binds.storage.count, 8 + 2 + 28)
    }
}
