import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// The 1 → 2 → 3 upgrade chain, one pure step at a time.
final class FormatUpgradeTests: XCTestCase {
    private let room = Array(#"{"walls":[]}"#.utf8)

    private func v1(
        name: String = "Bedroom", timestamp: Double = 792576000.25, room: [UInt8]? = nil,
        summary: [UInt8]? = nil
    ) -> ExportRecordV1 {
        ExportRecordV1(
            roomName: name, timestamp: timestamp, fullRoomData: room ?? self.room, summaryJSON: summary,
            floorAreaSqM: 12.5, ceilingHeightM: 2.41, wallCount: 4, objectCount: 3)
    }

    private func json(_ bytes: [UInt8]?) throws -> [String: Any] {
        let data = Data(try XCTUnwrap(bytes))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testV1ToV2() throws {
        let summary = Array(#"{"wall_count":5}"#.utf8)
        let up = FormatUpgrade.upgrade(v1(summary: summary))
        XCTAssertEqual(up.roomName, "Bedroom")
        XCTAssertEqual(up.capturedAt, "2026-02-12T08:00:00.250Z")
        XCTAssertEqual(up.fullRoomData, room)
        XCTAssertEqual(up.summary, summary, "the stored summaryJSON wins over the legacy columns")
        XCTAssertEqual(up.id, RecordIdentity.contentID(roomName: "Bedroom", timestamp: 792576000.25, roomData: room))
        XCTAssertEqual(Array(up.id)[14], "8")
    }

    func testV1IdIsDeterministicFromContent() {
        XCTAssertEqual(FormatUpgrade.upgrade(v1()).id, FormatUpgrade.upgrade(v1()).id)
        XCTAssertEqual(
            FormatUpgrade.upgrade(v1()).id, FormatUpgrade.upgrade(v1(summary: Array("{}".utf8))).id,
            "the stored summary is not part of the identity")
        XCTAssertNotEqual(
            FormatUpgrade.upgrade(v1()).id, FormatUpgrade.upgrade(v1(room: Array(#"{"walls":[{}]}"#.utf8))).id)
        XCTAssertNotEqual(FormatUpgrade.upgrade(v1()).id, FormatUpgrade.upgrade(v1(name: "Kitchen")).id)
        XCTAssertNotEqual(FormatUpgrade.upgrade(v1()).id, FormatUpgrade.upgrade(v1(timestamp: 0)).id)
    }

    func testV1CapturedAt() {
        XCTAssertEqual(FormatUpgrade.upgrade(v1(timestamp: 0)).capturedAt, "2001-01-01T00:00:00Z")
        XCTAssertEqual(FormatUpgrade.upgrade(v1(timestamp: -1.5)).capturedAt, "2000-12-31T23:59:58.500Z")
    }

    func testV1LegacyColumnsBecomeTheSummary() throws {
        let up = FormatUpgrade.upgrade(v1())
        let s = try json(up.summary)
        XCTAssertEqual(s["wall_count"] as? Int, 4)
        XCTAssertEqual(s["object_count"] as? Int, 3)
        XCTAssertEqual(s["ceiling_height_m"] as? Double, 2.41)
        XCTAssertEqual(s["estimated_floor_area_sqm"] as? Double, 12.5)
        XCTAssertEqual(s.count, 4)

        let partial = FormatUpgrade.upgrade(
            ExportRecordV1(roomName: "x", timestamp: 0, fullRoomData: room, wallCount: 2))
        XCTAssertEqual(try json(partial.summary).count, 1)
        let none = FormatUpgrade.upgrade(ExportRecordV1(roomName: "x", timestamp: 0, fullRoomData: room))
        XCTAssertNil(none.summary)
    }

    func testV2ToV3() {
        let v2 = ExportRecordV2(
            id: "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90", roomName: "Hall",
            capturedAt: "2026-02-10T09:15:00Z", fullRoomData: room, summary: Array("{}".utf8))
        let v3 = FormatUpgrade.upgrade(v2)
        XCTAssertEqual(
            v3,
            ExportRecordV3(
                id: v2.id, roomName: "Hall", capturedAt: "2026-02-10T09:15:00Z",
                room: room, summary: Array("{}".utf8), summaryVersion: 0))
        XCTAssertNil(
            FormatUpgrade.upgrade(
                ExportRecordV2(id: v2.id, roomName: "", capturedAt: "", fullRoomData: [], summary: nil)
            ).summary)
    }

    func testToCurrent() {
        let one = v1()
        let two = FormatUpgrade.upgrade(one)
        XCTAssertEqual(FormatUpgrade.toCurrent(.v1(one)), FormatUpgrade.upgrade(two))
        XCTAssertEqual(FormatUpgrade.toCurrent(.v1(one)).summaryVersion, 0)
        XCTAssertEqual(FormatUpgrade.toCurrent(.v1(one)).room, room)
        XCTAssertEqual(FormatUpgrade.toCurrent(.v2(two)), FormatUpgrade.upgrade(two))
        let three = ExportRecordV3(
            id: "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90", roomName: "K", capturedAt: "c",
            room: room, summary: nil, summaryVersion: 7)
        XCTAssertEqual(FormatUpgrade.toCurrent(.v3(three)), three)
        XCTAssertEqual(ParsedRecord.v1(one).formatVersion, 1)
        XCTAssertEqual(ParsedRecord.v2(two).formatVersion, 2)
        XCTAssertEqual(ParsedRecord.v3(three).formatVersion, 3)
    }

    func testParsedV1LineUpgradesLikeTheSameRecordBuiltByHand() throws {
        let line = try ExportFixtures.v1Line(name: "Bedroom", timestamp: 792576000.25, room: room)
        let parsed = try XCTUnwrap(RecordParser().parse(Array(line.utf8)).successValue())
        let current = FormatUpgrade.toCurrent(parsed)
        XCTAssertEqual(
            current.id, RecordIdentity.contentID(roomName: "Bedroom", timestamp: 792576000.25, roomData: room))
        XCTAssertEqual(current.capturedAt, "2026-02-12T08:00:00.250Z")
    }
}
