import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// The simdjson room decoder (`RecordParser.decodeRoom`) against the independent
/// JSONSerialization loader, on the four real sample rooms.
final class RoomDecodingTests: XCTestCase {
    private func assertSame(_ a: Room, _ b: Room, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.walls, b.walls, "\(name) walls", file: file, line: line)
        XCTAssertEqual(a.doors, b.doors, "\(name) doors", file: file, line: line)
        XCTAssertEqual(a.windows, b.windows, "\(name) windows", file: file, line: line)
        XCTAssertEqual(a.openings, b.openings, "\(name) openings", file: file, line: line)
        XCTAssertEqual(a.floors, b.floors, "\(name) floors", file: file, line: line)
        XCTAssertEqual(a.objects, b.objects, "\(name) objects", file: file, line: line)
        XCTAssertEqual(a.sectionLabels, b.sectionLabels, "\(name) sections", file: file, line: line)
        XCTAssertEqual(a, b, name, file: file, line: line)
    }

    func testRealRoomsMatchTheFoundationDecoding() throws {
        let parser = RecordParser()
        var totals = (walls: 0, objects: 0, floorCorners: 0, doors: 0, windows: 0)
        for name in RoomFixtures.names {
            let expected = try RoomFixtures.load(name)
            // The committed pretty-printed file as is, and the compact one-line form.
            for bytes in [try ExportFixtures.roomFileBytes(name), try ExportFixtures.compactRoom(name)] {
                let decoded = try XCTUnwrap(parser.decodeRoom(bytes).successValue(), name)
                assertSame(decoded, expected, name)
            }
            totals.walls += expected.walls.count
            totals.objects += expected.objects.count
            totals.doors += expected.doors.count
            totals.windows += expected.windows.count
            totals.floorCorners += expected.floors.reduce(0) { $0 + $1.polygonCorners.count }
        }
        // The comparison is not vacuous: the samples hold every kind of element.
        XCTAssertGreaterThan(totals.walls, 10)
        XCTAssertGreaterThan(totals.objects, 5)
        XCTAssertGreaterThan(totals.doors, 0)
        XCTAssertGreaterThan(totals.windows, 0)
        XCTAssertGreaterThan(totals.floorCorners, 3)
    }

    func testRealRoomsThroughEveryRecordVersion() throws {
        let parser = RecordParser()
        for name in RoomFixtures.names {
            let expected = try RoomFixtures.load(name)
            let compact = try ExportFixtures.compactRoom(name)
            let lines: [[UInt8]] = [
                Array(
                    try ExportFixtures.v1Line(name: name, timestamp: 1, room: try ExportFixtures.roomFileBytes(name))
                        .utf8),
                Array(
                    try ExportFixtures.v2Line(id: "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90", name: name, room: compact)
                        .utf8),
                ExportFixtures.v3Line(id: "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90", name: name, roomText: compact),
            ]
            for (i, line) in lines.enumerated() {
                let parsed = try XCTUnwrap(parser.parse(line).successValue(), "\(name) v\(i + 1)")
                XCTAssertEqual(parsed.formatVersion, i + 1)
                let current = FormatUpgrade.toCurrent(parsed)
                let room = try XCTUnwrap(parser.decodeRoom(current.room).successValue(), "\(name) v\(i + 1)")
                assertSame(room, expected, "\(name) v\(i + 1)")
            }
        }
    }

    /// The raw room `name` with one object per key of `categories` (its objects repeated).
    static func room(_ name: String, categories: [String]) throws -> [UInt8] {
        var object = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(try ExportFixtures.compactRoom(name))) as? [String: Any])
        let objects = try XCTUnwrap(object["objects"] as? [[String: Any]])
        object["objects"] = categories.indices.map { i in
            var copy = objects[i % objects.count]
            copy["category"] = [categories[i]: [String: Any]()]
            return copy
        }
        return [UInt8](try JSONSerialization.data(withJSONObject: object))
    }

    /// S07/S08 (security review 2026-11-27): a category key is cut to 64 bytes of UTF-8 at
    /// decode, on a scalar boundary, so a letter followed by 10,000 combining marks (one
    /// character, 20 KB) is not carried into summaries, comparisons and drawings.
    func testCategoryKeysAreCutTo64BytesOnAScalarBoundary() throws {
        let keys = [
            "k" + String(repeating: "\u{301}", count: 10_000),  // 1 + 2 × 10,000 bytes
            String(repeating: "\u{E9}", count: 40),  // 80 bytes, 2 a scalar
            "a" + String(repeating: "\u{20AC}", count: 30),  // 1 + 90 bytes, 3 a scalar
            "b" + String(repeating: "\u{1F3E0}", count: 20),  // 1 + 80 bytes, 4 a scalar
            String(repeating: "x", count: 64), "chair",
        ]
        let raw = try Self.room("Bedroom3", categories: keys)
        let room = try XCTUnwrap(RecordParser().decodeRoom(raw).successValue())
        let decoded = room.objects.map(\.category)
        XCTAssertEqual(
            decoded,
            [
                "k" + String(repeating: "\u{301}", count: 31), String(repeating: "\u{E9}", count: 32),
                "a" + String(repeating: "\u{20AC}", count: 21), "b" + String(repeating: "\u{1F3E0}", count: 15),
                String(repeating: "x", count: 64), "chair",
            ])
        for (cut, key) in zip(decoded, keys) {
            XCTAssertLessThanOrEqual(cut.utf8.count, RoomLimits.maxCategoryBytes)
            XCTAssertTrue(key.utf8.starts(with: cut.utf8), "a prefix of the key")
        }
        let json = try SummaryDeriver().derive(room).get().jsonString()
        XCTAssertLessThan(json.utf8.count, 2_000, json)
    }

    /// The members a derive reads are found in one pass over each object's keys (not a lookup by
    /// name each): what is wrong with them is named as before, in the same order, stored or not.
    func testWhatIsWrongWithAMemberIsNamedAsBefore() throws {
        let t = "[1,0,0,0,0,1,0,0,0,0,1,0,1.5,0,0,1]", d = "[3,2.5,0]"
        let cases: [(room: String, code: IssueCode, message: String)] = [
            (#"{"walls":[{"category":{"wall":{}},"transform":\#(t)}]}"#, .missingKey, "walls[0].dimensions is missing"),
            (
                #"{"walls":[{"dimensions":"x","transform":\#(t)}]}"#, .wrongType,
                "walls[0].dimensions: expected an array"
            ),
            (
                #"{"walls":[{"dimensions":[1,2],"transform":\#(t)}]}"#, .badDimensions,
                "walls[0].dimensions: expected 3 numbers, found 2"
            ),
            (
                #"{"walls":[{"dimensions":[1,"a",3],"transform":\#(t)}]}"#, .wrongType,
                "walls[0].dimensions[1]: expected a number"
            ),
            (
                #"{"walls":[{"dimensions":[1,-2,3],"transform":\#(t)}]}"#, .negativeDimension,
                "walls[0].dimensions[1] is negative"
            ),
            (#"{"walls":[{"dimensions":\#(d)}]}"#, .missingKey, "walls[0].transform is missing"),
            (
                #"{"walls":[{"dimensions":\#(d),"transform":[1,0,0,0,0,1,0,0,0,0,1,0,1.5,0,0]}]}"#, .badTransform,
                "walls[0].transform: expected 16 numbers, found 15"
            ),
            (
                #"{"walls":[{"dimensions":\#(d),"transform":[1,0,0,0,0,1,0,0,0,0,1,0,1.5,0,0,"z"]}]}"#, .badTransform,
                "walls[0].transform[15]: expected a number"
            ),
            (#"{"objects":[{"dimensions":\#(d),"transform":\#(t)}]}"#, .missingKey, "objects[0].category is missing"),
            (
                #"{"objects":[{"category":{},"dimensions":\#(d),"transform":\#(t)}]}"#, .wrongType,
                "objects[0].category is empty"
            ),
            (
                #"{"objects":[{"category":3,"dimensions":\#(d),"transform":\#(t)}]}"#, .wrongType,
                "objects[0].category: expected an object"
            ),
            (
                #"{"floors":[{"dimensions":\#(d),"transform":\#(t),"polygonCorners":"x"}]}"#, .wrongType,
                "floors[0].polygonCorners: expected an array"
            ),
            (
                #"{"floors":[{"dimensions":\#(d),"transform":\#(t),"polygonCorners":[[1]]}]}"#, .wrongType,
                "floors[0].polygonCorners[0]: expected 2 or 3 numbers"
            ),
            (
                #"{"floors":[{"dimensions":\#(d),"transform":\#(t),"polygonCorners":[[1,2],[1,"a"]]}]}"#, .wrongType,
                "floors[0].polygonCorners[1]: expected a number"
            ),
            (#"{"doors":{}}"#, .wrongType, "doors: expected an array"),
            (#"{"sections":[1]}"#, .wrongType, "sections[0]: expected an object"),
        ]
        let parser = RecordParser()
        for (room, code, message) in cases {
            for stored in [false, true] {
                let failure = try XCTUnwrap(
                    parser.decodeRoom(Array(room.utf8), storedByImport: stored).failureValue(), room)
                XCTAssertEqual(failure.code, code, room)
                XCTAssertEqual(failure.message, "room: " + message, room)
            }
        }
    }

    /// A stored room is not walked for duplicate keys again: of a member written twice the first
    /// is read, as a lookup by name read it; keys are compared unescaped.
    func testAStoredRoomReadsTheFirstOfAMemberWrittenTwice() throws {
        let t = "[1,0,0,0,0,1,0,0,0,0,1,0,1.5,0,0,1]", d = "[3,2.5,0]"
        let parser = RecordParser()
        func stored(_ room: String) throws -> Room {
            try XCTUnwrap(parser.decodeRoom(Array(room.utf8), storedByImport: true).successValue(), room)
        }
        XCTAssertEqual(try stored(#"{"walls":[{"dimensions":\#(d),"transform":\#(t)}],"walls":[]}"#).walls.count, 1)
        let twice = try stored(#"{"walls":[{"dimensions":[9,8,7],"dimensions":\#(d),"transform":\#(t)}]}"#)
        XCTAssertEqual(twice.walls.first?.dimensions, SIMD3(9, 8, 7))
        let categories = try stored(
            #"{"objects":[{"category":{"bed":{}},"category":{"chair":{}},"dimensions":\#(d),"transform":\#(t)}]}"#)
        XCTAssertEqual(categories.objects.map(\.category), ["bed"])
        let escaped = try stored(#"{"w\u0061lls":[{"dim\u0065nsions":\#(d),"transform":\#(t)}]}"#)
        XCTAssertEqual(escaped.walls.first?.dimensions, SIMD3(3, 2.5, 0))
    }
}
