import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// `RoomSummary.Key` is the one list of summary keys: it must match what `jsonBytes()` writes.
final class RoomSummaryKeyTests: XCTestCase {
    func testKeysAreWhatJSONBytesWritesInOrder() {
        let summary = RoomSummary.sample {
            $0.objectCategories = ["bed": 1, "chair": 2]
            $0.sectionLabels = ["bedroom", "a \"quoted\", {label}"]
            $0.floorPolygon2D = [SIMD2(0, 0), SIMD2(4, 0), SIMD2(4, 3)]
        }
        XCTAssertEqual(JSONMembers.topLevel(summary.jsonString()).map(\.key), RoomSummary.Key.allCases.map(\.rawValue))
    }

    /// The spec's fields keep their kinds and units (a field added since is checked by its row).
    func testKinds() {
        let spec: [(String, RoomSummary.Key.Kind, String?)] = [
            ("wall_count", .count, nil), ("door_count", .count, nil), ("window_count", .count, nil),
            ("opening_count", .count, nil), ("object_count", .count, nil), ("ceiling_height_m", .float, "m"),
            ("estimated_floor_area_sqm", .float, "m²"), ("floor_area_method", .string, nil),
            ("volume_m3", .float, "m³"),
            ("total_wall_area_sqm", .float, "m²"), ("perimeter_m", .float, "m"), ("longest_wall_m", .float, "m"),
            ("shortest_wall_m", .float, "m"), ("room_shape", .string, nil), ("object_categories", .structured, nil),
            ("section_labels", .structured, nil), ("floor_polygon_2d_m", .structured, nil),
        ]
        for (name, kind, unit) in spec {
            let key = RoomSummary.Key(rawValue: name)
            XCTAssertEqual(key?.kind, kind, name)
            XCTAssertEqual(key?.unit, unit, name)
        }
        let keys = RoomSummary.Key.allCases
        XCTAssertEqual(keys.filter { $0.unit != nil }, keys.filter { $0.kind == .float }, "floats alone have units")
        XCTAssertNotNil(SummaryDeriver.versionNotes[SummaryDeriver.currentVersion], "every version has its note")
    }

    /// A key is one of the table's or nothing; each is written as is (no character to escape).
    func testKeysComeFromTheFieldTable() {
        XCTAssertEqual(RoomSummary.Key.allCases, RoomSummary.fields.map(\.key))
        XCTAssertEqual(Set(RoomSummary.Key.allCases).count, RoomSummary.fields.count, "no key twice")
        XCTAssertNil(RoomSummary.Key(rawValue: "skylight_count"))
        for key in RoomSummary.Key.allCases {
            XCTAssertEqual(RoomSummary.Key(rawValue: key.rawValue), key)
            XCTAssertTrue(key.rawValue.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") })
            XCTAssertEqual(key.field.key, key)
        }
        XCTAssertEqual(
            [RoomSummary.Key.floorAreaMethod, .estimatedFloorAreaSqm, .longestWallM, .shortestWallM].map(\.kind),
            [RoomSummary.Key.Kind.string, .float, .float, .float])
        XCTAssertTrue(RoomSummary.fields.filter { $0.kind == .structured }.allSatisfy { $0.column == nil })
    }

    /// The spec's field table (<doc:RoomSummary>, "Fields") names every key of the field table,
    /// in its order, and no other.
    func testTheSpecTableNamesEveryKeyInOrder() throws {
        let spec = try String(
            contentsOf: RoomFixtures.repoRoot.appendingPathComponent(
                "Sources/RederiveCore/RederiveCore.docc/RoomSummary.md"),
            encoding: .utf8)
        let lines = spec.components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("## Fields") }, "the spec has a Fields section")
        let header = try XCTUnwrap(lines[start...].firstIndex { $0.hasPrefix("| key |") }, "and a table there")
        let keys = lines[(header + 2)...].prefix { $0.hasPrefix("|") }.flatMap { row in
            let first = row.split(separator: "|", omittingEmptySubsequences: false)[1]
            return first.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        }
        XCTAssertEqual(keys, RoomSummary.Key.allCases.map(\.rawValue))
    }
}
