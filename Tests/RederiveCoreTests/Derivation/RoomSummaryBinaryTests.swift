import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// The bytes a plan's check spills of each summary (`RoomSummary.appendBinary`) give back the
/// summary exactly, doubles bit for bit (the stored numeric columns keep full precision), and
/// a cut or damaged encoding is no summary.
final class RoomSummaryBinaryTests: XCTestCase {
    /// The sample rooms' summaries, and one with every collection filled and awkward values.
    private func summaries() throws -> [RoomSummary] {
        var all = try RoomFixtures.names.map { try SummaryDeriver().derive(RoomFixtures.load($0)).get() }
        var odd = try XCTUnwrap(all.first)
        odd.ceilingHeightM = 0.1 + 0.2
        odd.estimatedFloorAreaSqm = -0.0
        odd.perimeterM = .greatestFiniteMagnitude
        odd.roomShape = "irregular (9 walls) é\u{0}"
        odd.objectCategories = ["chair": 2, "": -1, "tabl\u{e9}": Int.max]
        odd.sectionLabels = ["living", "", "b\u{0}ath"]
        odd.floorPolygon2D = [SIMD2(1.0 / 3.0, -2.5), SIMD2(.leastNonzeroMagnitude, 0)]
        odd.floorAreaMethod = .wallOutline
        all.append(odd)
        return all
    }

    func testASummaryComesBackExactly() throws {
        for summary in try summaries() {
            var bytes: [UInt8] = [9, 9]
            summary.appendBinary(to: &bytes)
            let end = bytes.count
            bytes += [7]
            var offset = 2
            let decoded = try XCTUnwrap(RoomSummary.decodeBinary(bytes, at: &offset))
            XCTAssertEqual(decoded, summary)
            XCTAssertEqual(offset, end, "moved past it, not further")
            XCTAssertEqual(decoded.ceilingHeightM.bitPattern, summary.ceilingHeightM.bitPattern)
            XCTAssertEqual(decoded.estimatedFloorAreaSqm.bitPattern, summary.estimatedFloorAreaSqm.bitPattern)
            XCTAssertEqual(decoded.jsonBytes(), summary.jsonBytes())
        }
    }

    func testACutOrDamagedEncodingIsNoSummary() throws {
        let summary = try XCTUnwrap(try summaries().last)
        var bytes: [UInt8] = []
        summary.appendBinary(to: &bytes)
        for length in 0..<bytes.count {
            var offset = 0
            XCTAssertNil(RoomSummary.decodeBinary(Array(bytes.prefix(length)), at: &offset), "cut at \(length)")
        }
        // The floor-area method's name (after 12 words and its length) is not a method.
        var damaged = bytes
        damaged[12 * 8 + 8] ^= 0x20
        var offset = 0
        XCTAssertNil(RoomSummary.decodeBinary(damaged, at: &offset))
        // A collection count larger than the bytes left.
        var huge = bytes
        let countAt = 12 * 8 + 8 + summary.floorAreaMethod.rawValue.utf8.count + 8 + summary.roomShape.utf8.count
        huge.replaceSubrange(countAt..<countAt + 8, with: [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0])
        offset = 0
        XCTAssertNil(RoomSummary.decodeBinary(huge, at: &offset))
    }
}
