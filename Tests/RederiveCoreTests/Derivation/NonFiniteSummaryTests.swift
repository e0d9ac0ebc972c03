import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// Values that are finite in the room but not once derived or rounded for the JSON
/// (issue 8, point 1): each is a `derive:non_finite_value`, never a `null` in a summary.
final class NonFiniteSummaryTests: XCTestCase {
    private func failure(_ room: Room, file: StaticString = #filePath, line: UInt = #line) -> DerivationFailure? {
        SummaryDeriver().derive(room).failureValue(file: file, line: line)
    }

    func testFloorAreaThatOverflowsWhenRoundedIsNonFiniteValue() throws {
        // 1e154 × 1e154 = 1e308 is finite; × 100 for the 2-decimal rounding is not.
        let floor = RoomBuilder.floor(corners: [], dimensions: SIMD2(1e154, 1e154))
        let f = try XCTUnwrap(failure(Room(floors: [floor])))
        XCTAssertEqual(f.code, .nonFiniteValue)
        XCTAssertTrue(f.message.contains("estimated_floor_area_sqm"), f.message)
    }

    func testPolygonCornerThatOverflowsWhenRoundedIsNonFiniteValue() throws {
        // A thin sliver: the area stays small and finite, the corner does not once rounded.
        let floor = RoomBuilder.floor(corners: [SIMD2(0, 0), SIMD2(1e307, 0), SIMD2(1e307, 1e-300)])
        let f = try XCTUnwrap(failure(Room(floors: [floor])))
        XCTAssertEqual(f.code, .nonFiniteValue)
        XCTAssertTrue(f.message.contains("floor_polygon_2d_m"), f.message)
    }

    func testWallLengthThatOverflowsWhenRoundedIsNonFiniteValue() throws {
        var wall = RoomBuilder.wall(from: SIMD2(0, 0), to: SIMD2(1, 0))
        wall.dimensions = SIMD3(1e307, 1e-300, 0)
        let f = try XCTUnwrap(failure(Room(walls: [wall])))
        XCTAssertEqual(f.code, .nonFiniteValue)
    }

    func testLargeButRoundableValuesStillDerive() throws {
        let floor = RoomBuilder.floor(corners: [], dimensions: SIMD2(1e100, 1e100))
        let summary = try XCTUnwrap(SummaryDeriver().derive(Room(floors: [floor])).successValue())
        XCTAssertFalse(summary.jsonString().contains("null"), summary.jsonString())
    }

    func testEveryDerivedSummaryOfTheProcessorIsFreeOfNull() throws {
        // Through the whole record pipeline, as the import and summarize jobs run it.
        let room = #"{"floors":[{"dimensions":[1e154,1e154,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}"#
        let line = ExportFixtures.v3Line(
            id: "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90", name: "huge", roomText: Array(room.utf8))
        let failure = try XCTUnwrap(RecordProcessor(deriver: SummaryDeriver()).process(line: line).failureValue())
        XCTAssertEqual(failure.stage, .derive)
        XCTAssertEqual(failure.code, .nonFiniteValue)
    }
}
