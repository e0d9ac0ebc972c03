import Foundation
import XCTest
@testable import RederiveCore

/// `RoomSummary.Key` is the one list of summary keys: it must match what `jsonBytes()` writes.
final class RoomSummaryKeyTests: XCTestCase {
    /// The top-level keys of a JSON object, in the order they appear in the text.
    private func topLevelKeys(_ bytes: [UInt8]) -> [String] {
        var keys: [String] = [], depth = 0, i = 0
        var expectingKey = false
        while i < bytes.count {
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                expectingKey = depth == 1 && c == UInt8(ascii: "{")
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ","): expectingKey = depth == 1
            case UInt8(ascii: "\""):
                var j = i + 1
                while bytes[j] != UInt8(ascii: "\"") { j += bytes[j] == UInt8(ascii: "\\") ? 2 : 1 }
                if expectingKey { keys.append(String(decoding: bytes[(i + 1)..<j], as: UTF8.self)) }
                expectingKey = false
                i = j
            default: break
            }
            i += 1
        }
        return keys
    }

    func testKeysAreWhatJSONBytesWritesInOrder() {
        let summary = RoomSummary(
            wallCount: 4, doorCount: 1, windowCount: 2, openingCount: 0, objectCount: 3, ceilingHeightM: 2.4,
            estimatedFloorAreaSqm: 11.81, floorAreaMethod: .floorPolygon, volumeM3: 28.34, totalWallAreaSqm: 33,
            perimeterM: 13.8, longestWallM: 4.1, shortestWallM: 2.8, roomShape: "rectangular",
            objectCategories: ["bed": 1, "chair": 2], sectionLabels: ["bedroom", "a \"quoted\", {label}"],
            floorPolygon2D: [SIMD2(0, 0), SIMD2(4, 0), SIMD2(4, 3)])
        XCTAssertEqual(topLevelKeys(summary.jsonBytes()), RoomSummary.Key.allCases.map(\.rawValue))
    }

    func testKinds() {
        XCTAssertEqual(
            RoomSummary.Key.allCases.filter { $0.kind == .count }.map(\.rawValue),
            ["wall_count", "door_count", "window_count", "opening_count", "object_count"])
        XCTAssertEqual(RoomSummary.Key.allCases.filter { $0.kind == .string }, [.floorAreaMethod, .roomShape])
        XCTAssertEqual(
            RoomSummary.Key.allCases.filter { $0.kind == .structured },
            [.objectCategories, .sectionLabels, .floorPolygon2DM])
        XCTAssertEqual(RoomSummary.Key.allCases.filter { $0.kind == .float }.count, 7)
        XCTAssertEqual(RoomSummary.Key.estimatedFloorAreaSqm.unit, "m²")
        XCTAssertNotNil(SummaryDeriver.versionNotes[SummaryDeriver.currentVersion], "every version has its note")
    }
}
