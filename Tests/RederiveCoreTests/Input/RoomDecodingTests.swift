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
}
