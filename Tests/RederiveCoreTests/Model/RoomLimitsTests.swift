import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// Rooms at and beyond `RoomLimits` (issue 8, point 2): at the limit they derive (the
/// `wall_loop` walk is near-linear), beyond it they are a per-record `decode:room_too_large`.
final class RoomLimitsTests: XCTestCase {
    private static let identity = "[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]"

    /// The issue's stalling room: wall i is 1 m wide at x = i + 0.5, so the walls chain end
    /// to end along x and the walk takes every one of them before finding no loop.
    static func chainedWallsRoom(_ count: Int) -> [UInt8] {
        var text = #"{"walls":["#
        for i in 0..<count {
            if i > 0 { text += "," }
            text += #"{"dimensions":[1,2.5,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,\#(Double(i) + 0.5),0,0,1]}"#
        }
        return Array((text + "]}").utf8)
    }

    private func line(room: [UInt8]) -> [UInt8] {
        ExportFixtures.v3Line(id: "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90", name: "big", roomText: room)
    }

    func testChainedWallsAtTheLimitDerive() throws {
        let processor = RecordProcessor(deriver: SummaryDeriver())
        let started = Date()
        let result = processor.process(line: line(room: Self.chainedWallsRoom(RoomLimits.maxSurfacesPerKind)))
        let derived = try XCTUnwrap(result.successValue())
        // Collinear walls do not close: the hull of a line has no area.
        XCTAssertEqual(derived.summary.floorAreaMethod, .wallHull)
        XCTAssertEqual(derived.summary.wallCount, RoomLimits.maxSurfacesPerKind)
        XCTAssertEqual(derived.summary.perimeterM, Double(RoomLimits.maxSurfacesPerKind))
        // Reported for hand measurement only (no assertion on time).
        print("chained walls at the limit (\(RoomLimits.maxSurfacesPerKind)): \(Date().timeIntervalSince(started)) s")
    }

    func testOneWallBeyondTheLimitIsRoomTooLarge() throws {
        let processor = RecordProcessor(deriver: SummaryDeriver())
        let result = processor.process(line: line(room: Self.chainedWallsRoom(RoomLimits.maxSurfacesPerKind + 1)))
        let failure = try XCTUnwrap(result.failureValue())
        XCTAssertEqual(failure.stage, .decode)
        XCTAssertEqual(failure.code, .roomTooLarge)
        XCTAssertEqual(failure.id, "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90")
        XCTAssertTrue(failure.message.contains("10001 walls"), failure.message)
    }

    func testTooManyObjectsOrFloorCornersIsRoomTooLarge() throws {
        let object = #"{"category":{"chair":{}},"dimensions":[1,1,1],"transform":\#(Self.identity)}"#
        let objects =
            #"{"objects":["# + Array(repeating: object, count: RoomLimits.maxObjects + 1).joined(separator: ",") + "]}"
        let parser = RecordParser()
        XCTAssertEqual(parser.decodeRoom(Array(objects.utf8)).failureValue()?.code, .roomTooLarge)

        let corners = Array(repeating: "[0,0,0]", count: RoomLimits.maxFloorCorners + 1).joined(separator: ",")
        let floor = #"{"floors":[{"dimensions":[1,1,0],"transform":\#(Self.identity),"polygonCorners":[\#(corners)]}]}"#
        XCTAssertEqual(parser.decodeRoom(Array(floor.utf8)).failureValue()?.code, .roomTooLarge)

        let doors =
            #"{"doors":["#
            + Array(
                repeating: #"{"dimensions":[1,2,0],"transform":\#(Self.identity)}"#,
                count: RoomLimits.maxSurfacesPerKind + 1
            ).joined(separator: ",") + "]}"
        XCTAssertEqual(parser.decodeRoom(Array(doors.utf8)).failureValue()?.code, .roomTooLarge)
    }

    func testAtTheLimitsEveryKindDecodes() throws {
        let object = #"{"category":{"chair":{}},"dimensions":[1,1,1],"transform":\#(Self.identity)}"#
        let objects =
            #"{"objects":["# + Array(repeating: object, count: RoomLimits.maxObjects).joined(separator: ",") + "]}"
        XCTAssertEqual(
            RecordParser().decodeRoom(Array(objects.utf8)).successValue()?.objects.count, RoomLimits.maxObjects)
    }
}
