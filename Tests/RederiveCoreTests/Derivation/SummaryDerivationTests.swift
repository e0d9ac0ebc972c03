import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// The deriver's contract: failures for non-finite/negative values, exact JSON, fingerprint.
final class SummaryDerivationTests: XCTestCase {
    private func failure(_ room: Room, file: StaticString = #filePath, line: UInt = #line) -> DerivationFailure? {
        switch SummaryDeriver().derive(room) {
        case .success(let s): XCTFail("expected a failure, got \(s)", file: file, line: line); return nil
        case .failure(let f): return f
        }
    }

    private func plainWall(width: Double, height: Double) -> Surface {
        Surface(dimensions: SIMD3(width, height, 0), transform: .identity)
    }

    // MARK: Failures

    func testInfiniteWallHeightFails() {
        let f = failure(Room(walls: [plainWall(width: 2, height: .infinity)]))
        XCTAssertEqual(f, DerivationFailure(code: "non_finite_value", message: "ceiling_height_m is not finite"))
    }

    func testNaNWallWidthFails() {
        let f = failure(Room(walls: [plainWall(width: 1, height: 2), plainWall(width: .nan, height: 2)]))
        XCTAssertEqual(f?.code, "non_finite_value")
        XCTAssertEqual(f?.message, "total_wall_area_sqm is not finite")
    }

    func testNegativeWallWidthFails() {
        let f = failure(Room(walls: [plainWall(width: -1, height: 2)]))
        XCTAssertEqual(f, DerivationFailure(code: "negative_value", message: "total_wall_area_sqm is negative"))
    }

    func testNegativeFloorDimensionsFail() {
        let floor = RoomBuilder.floor(corners: [], dimensions: SIMD2(-2, 3))
        let f = failure(Room(floors: [floor]))
        XCTAssertEqual(f, DerivationFailure(code: "negative_value", message: "estimated_floor_area_sqm is negative"))
    }

    func testOverflowingFloorAreaFails() {
        let floor = RoomBuilder.floor(corners: [SIMD2(0, 0), SIMD2(1e200, 0), SIMD2(1e200, 1e200)])
        let f = failure(Room(floors: [floor]))
        XCTAssertEqual(
            f, DerivationFailure(code: "non_finite_value", message: "estimated_floor_area_sqm is not finite"))
    }

    func testOverflowingVolumeFails() {
        let floor = RoomBuilder.floor(corners: [], dimensions: SIMD2(1e100, 1e100))
        let f = failure(Room(walls: [plainWall(width: 1, height: 1e200)], floors: [floor]))
        XCTAssertEqual(f, DerivationFailure(code: "non_finite_value", message: "volume_m3 is not finite"))
    }

    func testNonFiniteFloorPolygonFails() {
        var floor = RoomBuilder.floor(corners: [SIMD2(0, 0), SIMD2(1, 0), SIMD2(1, 1)])
        var e = floor.transform.elements
        e[12] = .nan
        floor.transform = Transform(e)
        let f = failure(Room(floors: [floor]))
        XCTAssertEqual(f, DerivationFailure(code: "non_finite_value", message: "floor_polygon_2d_m is not finite"))
    }

    func testNegativePolygonCoordinatesAreFine() throws {
        let floor = RoomBuilder.floor(corners: [SIMD2(-3, -3), SIMD2(-1, -3), SIMD2(-1, -1)])
        let s = try SummaryDeriver().derive(Room(floors: [floor])).get()
        XCTAssertEqual(s.estimatedFloorAreaSqm, 2, accuracy: 1e-12)
        XCTAssertEqual(s.floorPolygon2D.first, SIMD2(-3, -3))
    }

    // MARK: JSON

    /// `json` is one compact object, keys in the field table's order, and each field `expected`
    /// names is written exactly as there (a field added since is checked by its own tests).
    private func assertWrites(_ json: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        let members = JSONMembers.topLevel(json)
        let named = JSONMembers.topLevel(expected)
        XCTAssertEqual(members.map(\.key), RoomSummary.Key.allCases.map(\.rawValue), file: file, line: line)
        let rebuilt = "{" + members.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
        XCTAssertEqual(json, rebuilt, "nothing between the members", file: file, line: line)
        let keys = Set(named.map(\.key))
        XCTAssertEqual(members.filter { keys.contains($0.key) }.map(\.key), named.map(\.key), file: file, line: line)
        let written = Dictionary(members.map { ($0.key, $0.value) }) { a, _ in a }
        for (key, value) in named { XCTAssertEqual(written[key], value, key, file: file, line: line) }
    }

    func testJSONOfAHandBuiltRoom() throws {
        let floor = RoomBuilder.floor(corners: [SIMD2(-0.001, 0), SIMD2(3, 0), SIMD2(3, 2), SIMD2(0, 2)])
        let room = Room(
            walls: RoomBuilder.walls(outline: [SIMD2(0, 0), SIMD2(3, 0), SIMD2(3, 2), SIMD2(0, 2)], height: 2.4449),
            doors: [plainWall(width: 0.9, height: 2)],
            floors: [floor],
            objects: [
                RoomObject(category: "table", dimensions: SIMD3(1, 1, 1), transform: .identity),
                RoomObject(category: "chair", dimensions: SIMD3(1, 1, 1), transform: .identity),
                RoomObject(category: "chair", dimensions: SIMD3(1, 1, 1), transform: .identity),
            ],
            sectionLabels: ["living\"Room"]
        )
        let json = try SummaryDeriver().derive(room).get().jsonString()
        // area 6.001 → 6.0; volume 6.001 × 2.4449 = 14.67; wall area 10 × 2.4449 = 24.449 → 24.45;
        // the corner x −0.001 rounds to −0.0, written 0.0.
        let expected =
            #"{"wall_count":4,"door_count":1,"window_count":0,"opening_count":0,"object_count":3,"#
            + #""ceiling_height_m":2.44,"estimated_floor_area_sqm":6.0,"floor_area_method":"floor_polygon","#
            + #""volume_m3":14.67,"total_wall_area_sqm":24.45,"perimeter_m":10.0,"longest_wall_m":3.0,"#
            + #""shortest_wall_m":2.0,"room_shape":"rectangular","object_categories":{"chair":2,"table":1},"#
            + #""section_labels":["living\"Room"],"#
            + #""floor_polygon_2d_m":[{"x":0.0,"y":0.0},{"x":3.0,"y":0.0},{"x":3.0,"y":2.0},{"x":0.0,"y":2.0}]}"#
        assertWrites(json, expected)
        assertWrites(String(decoding: try SummaryDeriver().derive(room).get().jsonBytes(), as: UTF8.self), expected)
    }

    func testJSONRoundingEscapingAndNegativeZero() {
        let summary = RoomSummary.sample {
            ($0.wallCount, $0.doorCount, $0.windowCount, $0.openingCount, $0.objectCount) = (1, 2, 3, 4, 5)
            ($0.ceilingHeightM, $0.estimatedFloorAreaSqm, $0.floorAreaMethod) = (2.999, 11.812992888201535, .wallHull)
            ($0.volumeM3, $0.totalWallAreaSqm, $0.perimeterM) = (1e6 / 3, -0.004, 0.125)
            ($0.longestWallM, $0.shortestWallM) = (2.675, 1.005)
            $0.roomShape = "quote\" back\\ nl\n tab\t bell\u{07} é ☃"
            $0.objectCategories = ["z": 1, "a\"": 2, "M": 3]
            $0.sectionLabels = ["", "kitchen"]
            $0.floorPolygon2D = [SIMD2(-0.001, 1.5), SIMD2(-2.5, 0.004)]
        }
        let expected =
            #"{"wall_count":1,"door_count":2,"window_count":3,"opening_count":4,"object_count":5,"#
            + #""ceiling_height_m":3.0,"estimated_floor_area_sqm":11.81,"floor_area_method":"wall_hull","#
            + #""volume_m3":333333.33,"total_wall_area_sqm":0.0,"perimeter_m":0.13,"longest_wall_m":2.68,"#
            + #""shortest_wall_m":1.0,"room_shape":"quote\" back\\ nl\n tab\t bell\u0007 é ☃","#
            + #""object_categories":{"M":3,"a\"":2,"z":1},"section_labels":["","kitchen"],"#
            + #""floor_polygon_2d_m":[{"x":0.0,"y":1.5},{"x":-2.5,"y":0.0}]}"#
        assertWrites(summary.jsonString(), expected)
        XCTAssertFalse(summary.jsonString().contains("-0.0"))
        XCTAssertEqual(RoomSummary.roundedForJSON(-0.0).sign, .plus)
        XCTAssertEqual(RoomSummary.roundedForJSON(-0.004).sign, .plus)
        // Valid JSON that Foundation reads back to the same strings.
        let parsed = try? JSONSerialization.jsonObject(with: Data(expected.utf8)) as? [String: Any]
        XCTAssertEqual(parsed?["room_shape"] as? String, summary.roomShape)
    }

    /// S08 (security review 2026-11-27): category keys are sorted by their UTF-8 bytes, not by
    /// `String`'s `<`, which compares canonical equivalents: "e" + U+0301 reads as "é" (U+00E9),
    /// after "f", but its bytes (65 CC 81) come before "f"'s. ASCII keys keep their order.
    func testCategoryKeysAreSortedByTheirUTF8Bytes() throws {
        func categories(_ keys: [String]) -> String {
            let room = Room(
                objects: keys.map { RoomObject(category: $0, dimensions: SIMD3(1, 1, 1), transform: .identity) })
            let json = (try? SummaryDeriver().derive(room).get().jsonString()) ?? ""
            guard let start = json.range(of: "\"object_categories\":"), let end = json.range(of: ",\"section_labels\"")
            else { return json }
            return String(json[start.upperBound..<end.lowerBound])
        }
        XCTAssertEqual(categories(["f", "e\u{301}", "\u{E9}x"]), "{\"e\u{301}\":1,\"f\":1,\"\u{E9}x\":1}")
        XCTAssertEqual(categories(["z", "a\"", "M", "chair", "Z", "chair"]), #"{"M":1,"Z":1,"a\"":1,"chair":2,"z":1}"#)
    }

    // MARK: Fingerprint and determinism

    func testFingerprintIsStableAndTracksParameters() {
        let a = SummaryDeriver().fingerprint
        XCTAssertEqual(a, SummaryDeriver(version: 2, wallJoinTolerance: 0.30).fingerprint)
        XCTAssertEqual(a, SummaryDeriver().fingerprint)
        XCTAssertTrue(a.hasPrefix("v2-"), a)
        let hex = a.dropFirst(3)
        XCTAssertEqual(hex.count, 16, a)
        XCTAssertTrue(hex.allSatisfy { "0123456789abcdef".contains($0) }, a)
        // Pinned: if this changes, the output may change too, so bump currentVersion.
        XCTAssertEqual(a, Self.pinnedFingerprint)
        // Summary v1 keeps the fingerprint v1 builds wrote, so their stores are seen as v1.
        XCTAssertEqual(SummaryDeriver.v1.fingerprint, Self.pinnedV1Fingerprint)
        XCTAssertNotEqual(SummaryDeriver(version: 2, closesWallGaps: false).fingerprint, a, "the method is in it")

        let bumped = SummaryDeriver(version: 3).fingerprint
        XCTAssertNotEqual(bumped, a)
        XCTAssertTrue(bumped.hasPrefix("v3-"))
        XCTAssertNotEqual(SummaryDeriver(wallJoinTolerance: 0.31).fingerprint, a)
        XCTAssertNotEqual(SummaryDeriver(wallJoinTolerance: 0.30000000000000004).fingerprint, a)
        XCTAssertNotEqual(
            SummaryDeriver(wallJoinTolerance: 0.31).fingerprint,
            SummaryDeriver(version: 3, wallJoinTolerance: 0.31).fingerprint)
    }

    /// Checked independently: FNV-1a 64 of the descriptor computed in Python gives the same.
    /// (v2's outline gave way to the hull where they agree, in polygon or in area, before v2
    /// shipped: same version.)
    static let pinnedFingerprint = "v2-7c02c53f82bc81a8"
    /// Summary v1's, as every build before v2 wrote it.
    static let pinnedV1Fingerprint = "v1-51f168adf30335d8"

    func testDefaultsAndDeterminism() throws {
        let d = SummaryDeriver()
        XCTAssertEqual(d.version, SummaryDeriver.currentVersion)
        XCTAssertEqual(SummaryDeriver.currentVersion, 2)
        XCTAssertEqual(d.wallJoinTolerance, 0.30)
        for name in RoomFixtures.names {
            var room = try RoomFixtures.load(name)
            XCTAssertEqual(try d.derive(room).get(), try d.derive(room).get(), name)
            XCTAssertEqual(
                try d.derive(room).get().jsonBytes(), try SummaryDeriver().derive(room).get().jsonBytes(), name)
            room.floors = []
            XCTAssertEqual(try d.derive(room).get(), try d.derive(room).get(), name)
        }
    }
}
