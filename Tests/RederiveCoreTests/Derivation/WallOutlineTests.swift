import Foundation
import XCTest
@testable import RederiveCore
import RederiveCorpus
@testable import RederiveTestSupport

/// Summary v2's floorless outline, `wall_outline` (issue 37): synthetic rooms whose true
/// outline is known, with walls missing, moved, shuffled and noisy, and Apple's sample rooms
/// with their floors removed against their own floor polygon; never worse than v1.
final class WallOutlineTests: XCTestCase {
    /// True outlines, counter-clockwise, in metres.
    static let shapes: [(name: String, outline: [SIMD2<Double>])] = [
        ("rectangle", [SIMD2(0, 0), SIMD2(5, 0), SIMD2(5, 4), SIMD2(0, 4)]),
        ("L", [SIMD2(0, 0), SIMD2(6, 0), SIMD2(6, 3), SIMD2(3, 3), SIMD2(3, 5.5), SIMD2(0, 5.5)]),
        (
            "T",
            [
                SIMD2(2.5, 0), SIMD2(5, 0), SIMD2(5, 3.5), SIMD2(7.5, 3.5), SIMD2(7.5, 6), SIMD2(0, 6), SIMD2(0, 3.5),
                SIMD2(2.5, 3.5),
            ]
        ),
        (
            "U",
            [SIMD2(0, 0), SIMD2(7, 0), SIMD2(7, 5), SIMD2(5, 5), SIMD2(5, 2), SIMD2(2, 2), SIMD2(2, 5), SIMD2(0, 5)]
        ),
        ("hallway", [SIMD2(0, 0), SIMD2(8, 0), SIMD2(8, 2.5), SIMD2(0, 2.5)]),
    ]

    /// No wall missing, each one missing, each pair missing (keeping at least 3 walls).
    static func removals(_ count: Int) -> [[Int]] {
        var out: [[Int]] = [[]] + (0..<count).map { [$0] }
        for i in 0..<count { for j in (i + 1)..<count { out.append([i, j]) } }
        return out.filter { count - $0.count >= 3 }
    }

    struct Case {
        var tag: String
        var room: Room
        var truth: Double
        var removed: Int
        /// Whether the true outline is convex.
        var convex: Bool
        /// Whether the missing walls leave every corner of the true outline a wall end (no two
        /// missing walls meet): in a convex room, the hull of the ends is then the true outline.
        var everyCornerKept: Bool
    }

    /// Every shape (scaled by `scale`) with every removal, `motions` times each: rotated about y,
    /// translated, walls shuffled and each drawn either way, every wall end moved by up to
    /// `noise` metres in a random direction.
    static func cases(scale: Double, noise: Double, motions: Int, seed: UInt64) -> [Case] {
        var rng = SplitMix64(seed: seed)
        func uniform() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        var out: [Case] = []
        for (name, outline) in shapes {
            let points = outline.map { $0 * scale }
            let truth = FloorArea.shoelaceArea(points)
            let count = points.count
            let convex = points.indices.allSatisfy { i in
                let (a, b, c) = (points[i], points[(i + 1) % count], points[(i + 2) % count])
                return FloorArea.cross(b - a, c - b) > 0
            }
            for removed in removals(count) {
                let everyCornerKept = !removed.contains { i in removed.contains((i + 1) % count) }
                for motion in 0..<motions {
                    func jitter(_ p: SIMD2<Double>) -> SIMD2<Double> {
                        let r = noise * uniform().squareRoot(), angle = 2 * Double.pi * uniform()
                        return p + r * SIMD2(cos(angle), sin(angle))
                    }
                    var walls: [Surface] = []
                    for i in points.indices where !removed.contains(i) {
                        let a = jitter(points[i]), b = jitter(points[(i + 1) % points.count])
                        walls.append(
                            uniform() < 0.5 ? RoomBuilder.wall(from: a, to: b) : RoomBuilder.wall(from: b, to: a))
                    }
                    walls.shuffle(using: &rng)
                    let angle = 2 * Double.pi * uniform()
                    let offset = SIMD3(100 * uniform() - 50, 0, 100 * uniform() - 50)
                    let room = RoomBuilder.moved(Room(walls: walls), angle: angle, offset: offset)
                    out.append(
                        Case(
                            tag: "\(name) without walls \(removed), motion \(motion)", room: room, truth: truth,
                            removed: removed.count, convex: convex, everyCornerKept: everyCornerKept))
                }
            }
        }
        return out
    }

    func area(_ room: Room, _ deriver: SummaryDeriver) throws -> RoomSummary {
        try deriver.derive(room).get()
    }

    /// Exact ends give the exact area. A convex room whose missing walls leave every corner a
    /// wall end (no two missing walls meet) has its hull for outline, and a room whose hull has
    /// the true area (the L without the two walls at the outer corner of its narrow arm) the
    /// hull's area: v1's `wall_hull`, kept.
    func testSyntheticRoomsWithoutNoiseAreExact() throws {
        var outlined = 0
        for c in Self.cases(scale: 1, noise: 0, motions: 4, seed: 37) {
            let v2 = try area(c.room, SummaryDeriver())
            let error = abs(v2.estimatedFloorAreaSqm - c.truth) / c.truth
            XCTAssertLessThan(error, 1e-9, "\(c.tag): \(v2.estimatedFloorAreaSqm) vs \(c.truth)")
            let hullIsTrue = abs(try area(c.room, SummaryDeriver.v1).estimatedFloorAreaSqm - c.truth) < 1e-9 * c.truth
            let method: FloorAreaMethod =
                c.removed == 0 ? .wallLoop : (c.convex && c.everyCornerKept) || hullIsTrue ? .wallHull : .wallOutline
            XCTAssertEqual(v2.floorAreaMethod, method, c.tag)
            XCTAssertEqual(v2.volumeM3, v2.estimatedFloorAreaSqm * v2.ceilingHeightM, accuracy: 1e-9, c.tag)
            if v2.floorAreaMethod == .wallOutline { outlined += 1 }
        }
        XCTAssertGreaterThan(outlined, 350)
    }

    /// The criterion, "no estimate worse than v1's", strictly on every test room: the
    /// noiseless and the noisy synthetic rooms and the sample rooms without floors. Where v1 was
    /// right up to noise, v2 keeps its value (`hullStands`): on a convex room the outline is the
    /// hull up to the noise (its mean corners, closer on average, were further in 19 of the 48
    /// noisy convex rooms with a wall missing here); on the L without the two walls at the outer
    /// corner of its narrow arm the hull is another polygon with the true area (its free ends' noise made the
    /// outline 0.14 points further on one of them).
    func testNeverWorseThanV1OnAnyTestRoom() throws {
        func errors(_ room: Room, _ truth: Double) throws -> (v1: Double, v2: Double) {
            let v1 = try area(room, SummaryDeriver.v1).estimatedFloorAreaSqm
            let v2 = try area(room, SummaryDeriver()).estimatedFloorAreaSqm
            return (abs(v1 - truth) / truth, abs(v2 - truth) / truth)
        }
        for c in Self.cases(scale: 1, noise: 0, motions: 4, seed: 37) {
            let e = try errors(c.room, c.truth)
            XCTAssertLessThanOrEqual(e.v2, e.v1 + 1e-9, c.tag)
        }
        for name in RoomFixtures.names {
            var room = try RoomFixtures.load(name)
            let truth = try area(room, SummaryDeriver()).estimatedFloorAreaSqm
            room.floors = []
            let e = try errors(room, truth)
            XCTAssertLessThanOrEqual(e.v2, e.v1 + 1e-9, name)
        }
        for c in Self.cases(scale: 1.4, noise: 0.05, motions: 6, seed: 2026) {
            let e = try errors(c.room, c.truth)
            XCTAssertLessThanOrEqual(e.v2, e.v1 + 1e-9, "\(c.tag): v2 \(e.v2), v1 \(e.v1)")
        }
    }

    /// Wall ends moved by up to 5 cm (uniformly in a disc): within 2% of the true area, on rooms
    /// of 28 to 39 m² (the shapes scaled by 1.4). At this noise even a complete loop of a
    /// narrower room is 2% out: the walls' ends are all there is to measure.
    func testSyntheticRoomsWithFiveCentimetreNoiseAreWithinTwoPercent() throws {
        var worst = (error: 0.0, tag: "")
        for c in Self.cases(scale: 1.4, noise: 0.05, motions: 6, seed: 2026) {
            let v2 = try area(c.room, SummaryDeriver())
            let error = abs(v2.estimatedFloorAreaSqm - c.truth) / c.truth
            XCTAssertLessThanOrEqual(error, 0.02, "\(c.tag): \(v2.estimatedFloorAreaSqm) vs \(c.truth)")
            if error > worst.error { worst = (error, c.tag) }
        }
        print("wall_outline, 5 cm noise: worst error \(worst.error * 100)% (\(worst.tag))")
    }

    /// The table: Apple's sample rooms with their floors removed, against their own
    /// floor polygon. v1 (hull) was 7.2% and 28.6% out on Bathroom2 and Hallway2.
    func testSampleRoomsWithoutFloorsAreWithinTwoPercentOfTheirFloorPolygon() throws {
        // Kitchen's outline is its hull up to 0.2 µm: v1's area stands.
        let expected: [String: (v1: FloorAreaMethod, v2: FloorAreaMethod)] = [
            "Bathroom2": (.wallHull, .wallOutline), "Bedroom3": (.wallLoop, .wallLoop),
            "Hallway2": (.wallHull, .wallOutline), "Kitchen": (.wallHull, .wallHull),
        ]
        for name in RoomFixtures.names {
            var room = try RoomFixtures.load(name)
            let truth = try area(room, SummaryDeriver()).estimatedFloorAreaSqm
            room.floors = []
            let v1 = try area(room, SummaryDeriver.v1), v2 = try area(room, SummaryDeriver())
            XCTAssertEqual(v1.floorAreaMethod, expected[name]?.v1, name)
            XCTAssertEqual(v2.floorAreaMethod, expected[name]?.v2, name)
            let error = abs(v2.estimatedFloorAreaSqm - truth) / truth
            XCTAssertLessThanOrEqual(error, 0.02, "\(name): \(v2.estimatedFloorAreaSqm) vs \(truth)")
            XCTAssertEqual(v2.volumeM3, v2.estimatedFloorAreaSqm * v2.ceilingHeightM, accuracy: 1e-9, name)
        }
    }

    /// The project's Python reference (`expected_summaries.py --segments`, written from the spec
    /// alone, angles by atan2) derives every synthetic test room and the sample rooms without
    /// floors: same method, same area.
    func testThePythonReferenceAgreesOnEveryTestRoom() throws {
        var rooms = Self.cases(scale: 1, noise: 0, motions: 4, seed: 37).map(\.room)
        rooms += Self.cases(scale: 1.4, noise: 0.05, motions: 6, seed: 2026).map(\.room)
        for name in RoomFixtures.names {
            var room = try RoomFixtures.load(name)
            room.floors = []
            rooms.append(room)
        }
        let walls = rooms.map { room in
            room.walls.compactMap(FloorArea.wallSegment).map { [[$0.start.x, $0.start.y], [$0.end.x, $0.end.y]] }
        }
        let dir = try TemporaryDirectory()
        let input = dir.file("rooms.json")
        try JSONSerialization.data(withJSONObject: walls).write(to: URL(fileURLWithPath: input))
        let reference = try XCTUnwrap(try ExpectedSummaries.run(["--segments", input]) as? [[Any]])
        XCTAssertEqual(reference.count, rooms.count)
        var methods: [FloorAreaMethod: Int] = [:]
        for (i, (room, expected)) in zip(rooms, reference).enumerated() {
            let s = try area(room, SummaryDeriver())
            XCTAssertEqual(s.floorAreaMethod.rawValue, expected[0] as? String, "room \(i)")
            let area = try XCTUnwrap(expected[1] as? Double)
            XCTAssertEqual(s.estimatedFloorAreaSqm, area, accuracy: max(area, 1) * 1e-9, "room \(i)")
            methods[s.floorAreaMethod, default: 0] += 1
        }
        XCTAssertGreaterThan(methods[.wallOutline] ?? 0, 900)
        XCTAssertGreaterThan(methods[.wallHull] ?? 0, 60)
    }
}
