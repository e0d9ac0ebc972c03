import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// Lines → records of their format version, and every corrupt kind with its stage and code.
final class RecordParserTests: XCTestCase {
    private let parser = RecordParser()
    private let uuid = "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90"
    private let tinyRoom = Array(
        #"{"walls":[{"dimensions":[3,2.5,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,1.5,0,0,1]}],"objects":[]}"#.utf8)

    private func parse(_ text: String) -> Result<ParsedRecord, RecordFailure> { parser.parse(Array(text.utf8)) }

    private func assertFailure(
        _ result: Result<ParsedRecord, RecordFailure>, stage: RecordIssue.Stage, code: IssueCode,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        guard let f = result.failureValue(file: file, line: line) else { return }
        XCTAssertEqual(f.stage, stage, f.message, file: file, line: line)
        XCTAssertEqual(f.code, code, f.message, file: file, line: line)
        XCTAssertFalse(f.message.isEmpty, file: file, line: line)
    }

    private func assertRoomFailure(_ room: String, code: IssueCode, file: StaticString = #filePath, line: UInt = #line)
    {
        guard let f = parser.decodeRoom(Array(room.utf8)).failureValue(file: file, line: line) else { return }
        XCTAssertEqual(f.stage, .decode, f.message, file: file, line: line)
        XCTAssertEqual(f.code, code, f.message, file: file, line: line)
    }

    // MARK: Good records

    func testGoodV1() throws {
        let summary = Array(#"{"wall_count":4}"#.utf8)
        let line = try ExportFixtures.v1Line(name: "Bedroom", timestamp: 792576000.25, room: tinyRoom, summary: summary)
        guard case .v1(let r)? = parse(line).successValue() else { return XCTFail("expected v1") }
        XCTAssertEqual(r.roomName, "Bedroom")
        XCTAssertEqual(r.timestamp, 792576000.25)
        XCTAssertEqual(r.fullRoomData, tinyRoom)
        XCTAssertEqual(r.summaryJSON, summary)
        XCTAssertEqual(r.floorAreaSqM, 0)
        XCTAssertEqual(r.ceilingHeightM, 2.41)
        XCTAssertEqual(r.wallCount, 4)
        XCTAssertEqual(r.objectCount, 3)
    }

    func testV1WithoutOptionalFields() throws {
        let line = try ExportFixtures.line([
            "roomName": "Hall", "timestamp": 0, "fullRoomDataJSON": ExportFixtures.base64(tinyRoom),
        ])
        guard case .v1(let r)? = parse(line).successValue() else { return XCTFail("expected v1") }
        XCTAssertEqual(r, ExportRecordV1(roomName: "Hall", timestamp: 0, fullRoomData: tinyRoom))
    }

    func testGoodV2LowercaseIdIsCanonicalised() throws {
        let line = try ExportFixtures.v2Line(
            id: uuid.lowercased(), name: "Kitchen", room: tinyRoom, summary: ["wall_count": 4])
        guard case .v2(let r)? = parse(line).successValue() else { return XCTFail("expected v2") }
        XCTAssertEqual(r.id, uuid)
        XCTAssertEqual(r.roomName, "Kitchen")
        XCTAssertEqual(r.capturedAt, "2026-02-10T09:15:00Z")
        XCTAssertEqual(r.fullRoomData, tinyRoom)
        XCTAssertEqual(r.summary, Array(#"{"wall_count":4}"#.utf8))
    }

    func testGoodV2WithoutSummary() throws {
        let line = try ExportFixtures.v2Line(id: uuid, name: "Kitchen", room: tinyRoom)
        guard case .v2(let r)? = parse(line).successValue() else { return XCTFail("expected v2") }
        XCTAssertNil(r.summary)
    }

    func testGoodV3RoomIsTheRawSliceOfTheLine() throws {
        // Odd spacing, escapes and number spellings that a re-serialisation would change.
        let roomText = Array(
            (#"{ "walls" : [ {"dimensions":[3.50,2.5e0,0], "transform":[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]} ], "#
                + #""note":"a\/b \u00e9" , "coreModel":"QUJD" }"#).utf8)
        var text = ExportFixtures.v3Line(id: uuid, name: "Bath", roomText: roomText)
        // Whitespace after the room object before the comma.
        text = Array(
            String(decoding: text, as: UTF8.self).replacingOccurrences(of: "},\"summary\"", with: "}  \t ,\"summary\"")
                .utf8)
        for line in [text, paddedCopy(text)] {
            guard case .v3(let r)? = parser.parse(line).successValue() else { return XCTFail("expected v3") }
            XCTAssertEqual(r.id, uuid)
            XCTAssertEqual(r.roomName, "Bath")
            XCTAssertEqual(r.capturedAt, "2026-02-10T09:15:00Z")
            XCTAssertEqual(String(decoding: r.room, as: UTF8.self), String(decoding: roomText, as: UTF8.self))
            XCTAssertEqual(r.summary, Array(#"{"wall_count":4}"#.utf8))
            XCTAssertEqual(r.summaryVersion, 1)
        }
    }

    func testV3RealRoomBytesAreIdentical() throws {
        let room = try ExportFixtures.compactRoom("Kitchen")
        let line = ExportFixtures.v3Line(id: uuid, name: "Kitchen", roomText: room, summaryVersion: nil)
        guard case .v3(let r)? = parser.parse(line).successValue() else { return XCTFail("expected v3") }
        XCTAssertEqual(r.room, room)
        XCTAssertEqual(r.summaryVersion, 0, "absent summaryVersion is 0 (unknown)")
    }

    /// A copy of `bytes` with spare capacity, so the parser reads it in place (no copy).
    private func paddedCopy(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 128)
        out.append(contentsOf: bytes)
        return out
    }

    func testUnknownKeysAreIgnored() throws {
        let line = try ExportFixtures.v1Line(
            name: "Bedroom", timestamp: 1, room: tinyRoom,
            extra: ["appBuild": "7.1", "nested": ["room": 1, "id": "x"], "flags": [1, 2]])
        guard case .v1(let r)? = parse(line).successValue() else { return XCTFail("expected v1") }
        XCTAssertEqual(r.roomName, "Bedroom")
        let v3 = String(decoding: ExportFixtures.v3Line(id: uuid, name: "B", roomText: tinyRoom), as: UTF8.self)
            .replacingOccurrences(of: "{\"formatVersion\"", with: "{\"future\":{\"room\":[1,2]},\"formatVersion\"")
        guard case .v3(let r3)? = parse(v3).successValue() else { return XCTFail("expected v3") }
        XCTAssertEqual(r3.room, tinyRoom)
    }

    func testNonASCIIRoomName() throws {
        let line = try ExportFixtures.v1Line(name: "Küche \"groß\" 🛁", timestamp: 1, room: tinyRoom)
        guard case .v1(let r)? = parse(line).successValue() else { return XCTFail("expected v1") }
        XCTAssertEqual(r.roomName, "Küche \"groß\" 🛁")
    }

    // MARK: Corrupt lines (stage parse / upgrade)

    func testInvalidJSON() {
        assertFailure(parse("{\"roomName\": \"x\""), stage: .parse, code: "invalid_json")
        assertFailure(parse("not json"), stage: .parse, code: "invalid_json")
        assertFailure(parse("{\"a\":1} {\"b\":2}"), stage: .parse, code: "invalid_json")
    }

    func testInvalidUTF8() {
        let bytes: [UInt8] = Array(#"{"roomName":""#.utf8) + [0xFF, 0xFE] + Array(#"","timestamp":1}"#.utf8)
        assertFailure(parser.parse(bytes), stage: .parse, code: "invalid_utf8")
    }

    func testNotAnObject() {
        assertFailure(parse("[1,2,3]"), stage: .parse, code: "not_an_object")
        assertFailure(parse("\"text\""), stage: .parse, code: "not_an_object")
        assertFailure(parse("42"), stage: .parse, code: "not_an_object")
    }

    func testMissingKeys() throws {
        assertFailure(
            parse(try ExportFixtures.line(["roomName": "x", "timestamp": 1])), stage: .parse, code: "missing_key")
        assertFailure(
            parse(try ExportFixtures.line(["timestamp": 1, "fullRoomDataJSON": ""])), stage: .parse, code: "missing_key"
        )
        assertFailure(
            parse(try ExportFixtures.line(["roomName": "x", "fullRoomDataJSON": ""])), stage: .parse,
            code: "missing_key")
        let v3NoRoom = try ExportFixtures.line([
            "formatVersion": 3, "id": uuid, "roomName": "x", "capturedAt": "2026-01-01T00:00:00Z",
        ])
        let result = parse(v3NoRoom)
        assertFailure(result, stage: .parse, code: "missing_key")
        XCTAssertEqual(result.failureValue()?.id, uuid, "the id is known before the failure")
        XCTAssertTrue(result.failureValue()?.message.contains("room") ?? false)
        let v2NoId = try ExportFixtures.line([
            "formatVersion": 2, "roomName": "x", "capturedAt": "t", "fullRoomDataJSON": "",
        ])
        assertFailure(parse(v2NoId), stage: .parse, code: "missing_key")
    }

    func testWrongTypes() throws {
        assertFailure(
            parse(try ExportFixtures.line(["roomName": 42, "timestamp": 1, "fullRoomDataJSON": ""])),
            stage: .parse, code: "wrong_type")
        assertFailure(
            parse(try ExportFixtures.line(["roomName": "x", "timestamp": "yesterday", "fullRoomDataJSON": ""])),
            stage: .parse, code: "wrong_type")
        assertFailure(
            parse(try ExportFixtures.line(["roomName": "x", "timestamp": 1, "fullRoomDataJSON": 5])),
            stage: .parse, code: "wrong_type")
        var v3 = String(decoding: ExportFixtures.v3Line(id: uuid, name: "x", roomText: tinyRoom), as: UTF8.self)
        assertFailure(
            parse(v3.replacingOccurrences(of: "\"formatVersion\":3", with: "\"formatVersion\":\"3\"")),
            stage: .parse, code: "wrong_type")
        v3 = String(
            decoding: ExportFixtures.v3Line(id: uuid, name: "x", roomText: Array("\"text\"".utf8)), as: UTF8.self)
        assertFailure(parse(v3), stage: .parse, code: "wrong_type")
        v3 = String(decoding: ExportFixtures.v3Line(id: uuid, name: "x", roomText: Array("[1]".utf8)), as: UTF8.self)
        assertFailure(parse(v3), stage: .parse, code: "wrong_type")
        v3 = String(decoding: ExportFixtures.v3Line(id: uuid, name: "x", roomText: tinyRoom), as: UTF8.self)
        assertFailure(
            parse(v3.replacingOccurrences(of: "\"summaryVersion\":1", with: "\"summaryVersion\":\"1\"")),
            stage: .parse, code: "wrong_type")
        assertFailure(
            parse(v3.replacingOccurrences(of: "\"summary\":{\"wall_count\":4}", with: "\"summary\":7")),
            stage: .parse, code: "wrong_type")
        assertFailure(
            parse(v3.replacingOccurrences(of: "\"roomName\":\"x\"", with: "\"roomName\":null")),
            stage: .parse, code: "wrong_type")
    }

    func testInvalidBase64() throws {
        for bad in ["@@@@", "QUJD!", "A", "QU JD"] {
            assertFailure(
                parse(try ExportFixtures.line(["roomName": "x", "timestamp": 1, "fullRoomDataJSON": bad])),
                stage: .parse, code: "invalid_base64")
        }
        assertFailure(
            parse(
                try ExportFixtures.line([
                    "roomName": "x", "timestamp": 1, "fullRoomDataJSON": "QUJD", "summaryJSON": "%%",
                ])),
            stage: .parse, code: "invalid_base64")
        let v2 = try ExportFixtures.line([
            "formatVersion": 2, "id": uuid, "roomName": "x", "capturedAt": "2026-01-01T00:00:00Z",
            "fullRoomDataJSON": "~~~~",
        ])
        assertFailure(parse(v2), stage: .parse, code: "invalid_base64")
    }

    func testBase64WithAndWithoutPadding() throws {
        for (text, expected) in [("QQ==", "A"), ("QQ", "A"), ("QUI=", "AB"), ("QUI", "AB"), ("QUJD", "ABC"), ("", "")] {
            let line = try ExportFixtures.line(["roomName": "x", "timestamp": 1, "fullRoomDataJSON": text])
            guard case .v1(let r)? = parse(line).successValue() else { return XCTFail(text) }
            XCTAssertEqual(r.fullRoomData, Array(expected.utf8), text)
        }
    }

    func testInvalidId() throws {
        for bad in [
            "nope", "", "8B0E5F8A0D1C4B8E9E0A3C2F1D6B7A90", "{8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A9}",
            "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A9G",
        ] {
            let line = try ExportFixtures.v2Line(id: bad, name: "x", room: tinyRoom)
            assertFailure(parse(line), stage: .parse, code: "invalid_id")
        }
    }

    func testUnsupportedFormatVersion() throws {
        let line = try ExportFixtures.line(["formatVersion": 9, "id": uuid.lowercased(), "roomName": "x"])
        let result = parse(line)
        assertFailure(result, stage: .upgrade, code: "unsupported_format_version")
        XCTAssertEqual(result.failureValue()?.id, uuid)
        assertFailure(
            parse(try ExportFixtures.line(["formatVersion": 0])), stage: .upgrade, code: "unsupported_format_version")
        assertFailure(
            parse(try ExportFixtures.line(["formatVersion": -1])), stage: .upgrade, code: "unsupported_format_version")
        assertFailure(
            parse("{\"formatVersion\":18446744073709551615}"), stage: .upgrade, code: "unsupported_format_version")
    }

    func testNonFiniteNumberInV3RoomFailsTheWholeLine() {
        let room = Array(
            #"{"walls":[{"dimensions":[3,2.5,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,1e999,0,0,1]}]}"#.utf8)
        let line = ExportFixtures.v3Line(id: uuid, name: "x", roomText: room)
        assertFailure(parser.parse(line), stage: .parse, code: "non_finite_number")
    }

    func testV1TimestampOutsideISO8601YearsIsCorrupt() throws {
        for t in [1e300, -1e300, 3e11, -7e10] {
            let line = try ExportFixtures.v1Line(name: "x", timestamp: t, room: tinyRoom)
            assertFailure(parse(line), stage: .parse, code: "invalid_timestamp")
        }
        let edge = try ExportFixtures.v1Line(name: "x", timestamp: -63_113_904_000, room: tinyRoom)
        XCTAssertNotNil(parse(edge).successValue())
    }

    func testParserIsReusableAfterFailures() throws {
        assertFailure(parse("[1]"), stage: .parse, code: "not_an_object")
        let line = try ExportFixtures.v2Line(id: uuid, name: "After", room: tinyRoom)
        guard case .v2(let r)? = parse(line).successValue() else { return XCTFail("expected v2") }
        XCTAssertEqual(r.roomName, "After")
    }

    // MARK: Corrupt rooms (decodeRoom, stage decode)

    func testV2RoomThatIsNotJSON() throws {
        let line = try ExportFixtures.v2Line(id: uuid, name: "x", room: Array("not json".utf8))
        guard case .v2(let r)? = parse(line).successValue() else { return XCTFail("the line itself is fine") }
        XCTAssertEqual(r.fullRoomData, Array("not json".utf8))
        guard let f = parser.decodeRoom(r.fullRoomData).failureValue() else { return }
        XCTAssertEqual(f.stage, .decode)
        XCTAssertEqual(f.code, "invalid_room_json")
    }

    func testRoomDecodeFailures() {
        let t16 = "[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]"
        assertRoomFailure("[1,2]", code: "room_not_object")
        assertRoomFailure(
            "{\"walls\":[{\"dimensions\":[1,2,0],\"transform\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0]}]}",
            code: "bad_transform")
        assertRoomFailure(
            "{\"walls\":[{\"dimensions\":[1,2,0],\"transform\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1,0]}]}",
            code: "bad_transform")
        assertRoomFailure(
            "{\"walls\":[{\"dimensions\":[1,2,0],\"transform\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,\"x\"]}]}",
            code: "bad_transform")
        assertRoomFailure("{\"doors\":[{\"dimensions\":[1,-2,0],\"transform\":\(t16)}]}", code: "negative_dimension")
        assertRoomFailure(
            "{\"objects\":[{\"category\":{\"chair\":{}},\"dimensions\":[1,1,-0.5],\"transform\":\(t16)}]}",
            code: "negative_dimension")
        assertRoomFailure("{\"windows\":[{\"dimensions\":[1,2],\"transform\":\(t16)}]}", code: "bad_dimensions")
        assertRoomFailure("{\"openings\":[{\"dimensions\":[1,2,0]}]}", code: "missing_key")
        assertRoomFailure("{\"walls\":[{\"transform\":\(t16)}]}", code: "missing_key")
        assertRoomFailure("{\"objects\":[{\"dimensions\":[1,1,1],\"transform\":\(t16)}]}", code: "missing_key")
        assertRoomFailure("{\"walls\":{}}", code: "wrong_type")
        assertRoomFailure("{\"walls\":[{\"dimensions\":[1,\"2\",0],\"transform\":\(t16)}]}", code: "wrong_type")
        assertRoomFailure(
            "{\"floors\":[{\"dimensions\":[1,2,0],\"transform\":\(t16),\"polygonCorners\":[[1]]}]}", code: "wrong_type")
        assertRoomFailure(
            "{\"walls\":[{\"dimensions\":[1,2,0],\"transform\":[1,0,0,0,0,1,0,0,0,0,1,0,1e999,0,0,1]}]}",
            code: "non_finite_number")
        assertRoomFailure("{\"walls\":[", code: "invalid_room_json")
        assertRoomFailure("", code: "invalid_room_json")
    }

    func testMinimalAndOldRoomsDecode() throws {
        // Older exports have no floors/sections; unknown keys are ignored.
        let room = try XCTUnwrap(
            parser.decodeRoom(
                Array(
                    (#"{"walls":[],"doors":[],"windows":[],"openings":[],"objects":[],"#
                        + #""coreModel":"QUJD","future":{"x":[1]}}"#).utf8)
            ).successValue())
        XCTAssertEqual(room, Room())
        let two = try XCTUnwrap(parser.decodeRoom(tinyRoom).successValue())
        XCTAssertEqual(
            two.walls,
            [
                Surface(
                    dimensions: SIMD3(3, 2.5, 0),
                    transform: Transform([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1.5, 0, 0, 1]))
            ])
        XCTAssertEqual(try XCTUnwrap(parser.decodeRoom(Array("{}".utf8)).successValue()), Room())
    }

    func testFloorCornersCategoriesAndSections() throws {
        let t16 = "[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]"
        let text = """
            {"floors":[{"dimensions":[4,3,0],"transform":\(t16),"polygonCorners":[[0,0,0],[4,0,0],[4,3]]},\
            {"dimensions":[1,1,0],"transform":\(t16),"polygonCorners":[]},\
            {"dimensions":[2,2,0],"transform":\(t16),"polygonCorners":[[1,1,0],[2,1,0],[2,2,0]]}],\
            "objects":[{"category":{"chair":{}},"dimensions":[0.5,1,0.5],"transform":\(t16)},\
            {"category":{"storage":{}},"dimensions":[1,2,0.4],"transform":\(t16)}],\
            "sections":[{"label":"kitchen"},{"story":0},{"label":"living room"}]}
            """
        let room = try XCTUnwrap(parser.decodeRoom(Array(text.utf8)).successValue())
        XCTAssertEqual(
            room.floors.map(\.polygonCorners),
            [
                [SIMD3(0, 0, 0), SIMD3(4, 0, 0), SIMD3(4, 3, 0)], [], [SIMD3(1, 1, 0), SIMD3(2, 1, 0), SIMD3(2, 2, 0)],
            ])
        XCTAssertEqual(room.objects.map(\.category), ["chair", "storage"])
        XCTAssertEqual(room.objects[1].dimensions, SIMD3(1, 2, 0.4))
        XCTAssertEqual(room.sectionLabels, ["kitchen", "", "living room"])
    }
}
