import XCTest
@testable import RederiveCore
import RederiveCorpus
@testable import RederiveTestSupport

/// Floor-area geometry: invariance under rigid motion and wall order, and degenerate rooms.
final class FloorAreaDerivationTests: XCTestCase {
    private func derive(_ room: Room, file: StaticString = #filePath, line: UInt = #line) throws -> RoomSummary {
        switch SummaryDeriver().derive(room) {
        case .success(let s): return s
        case .failure(let f): XCTFail("derive failed: \(f)", file: file, line: line); throw f
        }
    }

    private func assertRelative(
        _ a: Double, _ b: Double, _ message: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(a, b, accuracy: max(abs(b), 1) * 1e-6, message, file: file, line: line)
    }

    // MARK: Rigid motion

    func testRotatedAndTranslatedRoomsKeepEveryAreaAndLength() throws {
        let angles = [0.3, 1.0, Double.pi / 2, 2.5, Double.pi, 4.4, -0.7]
        let offsets: [SIMD3<Double>] = [SIMD3(10, 0, -5), SIMD3(-123.4, 1.5, 77.7), SIMD3(0.001, 0, 0)]
        for name in RoomFixtures.names {
            for withFloors in [true, false] {
                var room = try RoomFixtures.load(name)
                if !withFloors { room.floors = [] }
                let base = try derive(room)
                for (i, angle) in angles.enumerated() {
                    let moved = RoomBuilder.moved(room, angle: angle, offset: offsets[i % offsets.count])
                    let s = try derive(moved)
                    let tag = "\(name) floors=\(withFloors) angle=\(angle)"
                    XCTAssertEqual(s.floorAreaMethod, base.floorAreaMethod, tag)
                    assertRelative(s.estimatedFloorAreaSqm, base.estimatedFloorAreaSqm, tag)
                    assertRelative(s.volumeM3, base.volumeM3, tag)
                    assertRelative(s.ceilingHeightM, base.ceilingHeightM, tag)
                    assertRelative(s.totalWallAreaSqm, base.totalWallAreaSqm, tag)
                    assertRelative(s.perimeterM, base.perimeterM, tag)
                    assertRelative(s.longestWallM, base.longestWallM, tag)
                    assertRelative(s.shortestWallM, base.shortestWallM, tag)
                    // The world polygon moves with the room but keeps its area.
                    assertRelative(
                        FloorArea.shoelaceArea(s.floorPolygon2D), FloorArea.shoelaceArea(base.floorPolygon2D), tag)
                }
            }
        }
    }

    func testFloorPolygonIsRotatedIntoWorldXZ() throws {
        // A 2 × 1 floor rotated 90° about y and moved: corner (2, 0) lands at (x, z) = (5, 7) + R·(2, 0).
        let floor = RoomBuilder.floor(corners: [SIMD2(0, 0), SIMD2(2, 0), SIMD2(2, 1), SIMD2(0, 1)])
        let room = RoomBuilder.moved(Room(floors: [floor]), angle: .pi / 2, offset: SIMD3(5, 0, 7))
        let s = try derive(room)
        XCTAssertEqual(s.floorPolygon2D.count, 4)
        XCTAssertEqual(s.floorPolygon2D[1].x, 5, accuracy: 1e-12)
        XCTAssertEqual(s.floorPolygon2D[1].y, 5, accuracy: 1e-12)
        XCTAssertEqual(s.estimatedFloorAreaSqm, 2, accuracy: 1e-12)
        XCTAssertEqual(FloorArea.shoelaceArea(s.floorPolygon2D), 2, accuracy: 1e-12)
    }

    // MARK: Wall order

    func testShuffledWallOrderGivesTheSameLoopArea() throws {
        var bedroom = try RoomFixtures.load("Bedroom3")
        bedroom.floors = []
        let lShape: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(4, 0), SIMD2(4, 2), SIMD2(2, 2), SIMD2(2, 3), SIMD2(0, 3)]
        let lRoom = Room(walls: RoomBuilder.walls(outline: lShape))
        XCTAssertEqual(try derive(lRoom).estimatedFloorAreaSqm, 10, accuracy: 1e-9)

        var generator = SplitMix64(seed: 42)
        for room in [bedroom, lRoom] {
            let base = try derive(room)
            XCTAssertEqual(base.floorAreaMethod, .wallLoop)
            for _ in 0..<20 {
                var shuffled = room
                shuffled.walls.shuffle(using: &generator)
                let s = try derive(shuffled)
                XCTAssertEqual(s.floorAreaMethod, .wallLoop)
                assertRelative(s.estimatedFloorAreaSqm, base.estimatedFloorAreaSqm, "shuffled")
            }
        }
    }

    func testLoopWalksWallsInEitherDirection() throws {
        // Alternate wall directions: the walk must take each wall from whichever end is near.
        let square: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(3, 0), SIMD2(3, 3), SIMD2(0, 3)]
        var walls = RoomBuilder.walls(outline: square)
        walls[1] = RoomBuilder.wall(from: square[2], to: square[1])
        walls[2] = RoomBuilder.wall(from: square[0], to: square[3])  // out of order, reversed
        walls[3] = RoomBuilder.wall(from: square[3], to: square[2])
        let s = try derive(Room(walls: walls))
        XCTAssertEqual(s.floorAreaMethod, .wallLoop)
        XCTAssertEqual(s.estimatedFloorAreaSqm, 9, accuracy: 1e-9)
    }

    func testLoopToleranceJoinsSmallGapsOnly() throws {
        // A 4 × 3 rectangle whose corners are pulled apart by 0.2 m gaps: still a loop at
        // 0.30 m, but not at 0.10 m (then the hull of the ends is used, which still has
        // all four corners: each wall starts exactly at one).
        let g = 0.2
        let walls = [
            RoomBuilder.wall(from: SIMD2(0, 0), to: SIMD2(4 - g, 0)),
            RoomBuilder.wall(from: SIMD2(4, 0), to: SIMD2(4, 3 - g)),
            RoomBuilder.wall(from: SIMD2(4, 3), to: SIMD2(g, 3)),
            RoomBuilder.wall(from: SIMD2(0, 3), to: SIMD2(0, g)),
        ]
        let room = Room(walls: walls)
        let loose = try derive(room)
        XCTAssertEqual(loose.floorAreaMethod, .wallLoop)
        // Shoelace of the visited far ends: (0,0) (3.8,0) (4,2.8) (0.2,3) (0,0.2).
        let expectedLoop = FloorArea.shoelaceArea([
            SIMD2(0, 0), SIMD2(3.8, 0), SIMD2(4, 2.8), SIMD2(0.2, 3), SIMD2(0, 0.2),
        ])
        XCTAssertEqual(loose.estimatedFloorAreaSqm, expectedLoop, accuracy: 1e-9)
        // At 0.10 m the walk fails: v2 closes the four gaps (each end lies on the next wall's
        // line, so straight), v1 took the hull; both are the rectangle here, so v2 keeps the hull.
        let closed = FloorArea.wallOutline(walls.compactMap(FloorArea.wallSegment), tolerance: 0.10)
        XCTAssertEqual(FloorArea.shoelaceArea(try XCTUnwrap(closed).points), 12, accuracy: 1e-9)
        let strict = SummaryDeriver(wallJoinTolerance: 0.10).derive(room)
        XCTAssertEqual(try strict.get().floorAreaMethod, .wallHull)
        XCTAssertEqual(try strict.get().estimatedFloorAreaSqm, 12, accuracy: 1e-9)
        let strictV1 = SummaryDeriver(version: 1, wallJoinTolerance: 0.10, closesWallGaps: false).derive(room)
        XCTAssertEqual(try strictV1.get().floorAreaMethod, .wallHull)
        XCTAssertEqual(try strictV1.get().estimatedFloorAreaSqm, 12, accuracy: 1e-9)
    }

    // MARK: Degenerate rooms

    func testNoWallsNoFloors() throws {
        let s = try derive(Room())
        XCTAssertEqual(s.floorAreaMethod, .none)
        XCTAssertEqual(s.estimatedFloorAreaSqm, 0)
        XCTAssertEqual(s.ceilingHeightM, 0)
        XCTAssertEqual(s.volumeM3, 0)
        XCTAssertEqual(s.longestWallM, 0)
        XCTAssertEqual(s.shortestWallM, 0)
        XCTAssertEqual(s.perimeterM, 0)
        XCTAssertEqual(s.totalWallAreaSqm, 0)
        XCTAssertEqual(s.roomShape, "partial")
        XCTAssertEqual(s.wallCount, 0)
        XCTAssertEqual(s.objectCategories, [:])
        XCTAssertEqual(s.sectionLabels, [])
        XCTAssertEqual(s.floorPolygon2D, [])
    }

    func testTwoWalls() throws {
        let walls = [
            RoomBuilder.wall(from: SIMD2(0, 0), to: SIMD2(3, 0), height: 2.4),
            RoomBuilder.wall(from: SIMD2(3, 0), to: SIMD2(3, 2), height: 2.6),
        ]
        let s = try derive(Room(walls: walls))
        XCTAssertEqual(s.floorAreaMethod, .none)
        XCTAssertEqual(s.estimatedFloorAreaSqm, 0)
        XCTAssertEqual(s.volumeM3, 0)
        XCTAssertEqual(s.roomShape, "partial")
        XCTAssertEqual(s.ceilingHeightM, 2.6, accuracy: 1e-12)
        XCTAssertEqual(s.longestWallM, 3, accuracy: 1e-12)
        XCTAssertEqual(s.shortestWallM, 2, accuracy: 1e-12)
        XCTAssertEqual(s.perimeterM, 5, accuracy: 1e-12)
        XCTAssertEqual(s.totalWallAreaSqm, 3 * 2.4 + 2 * 2.6, accuracy: 1e-12)
    }

    func testFloorWithFewerThanThreeCornersUsesDimensions() throws {
        let flat = RoomBuilder.floor(corners: [SIMD2(0, 0), SIMD2(1, 1)], dimensions: SIMD2(2.5, 4))
        let none = RoomBuilder.floor(corners: [], dimensions: SIMD2(1, 0.5))
        let square = RoomBuilder.floor(
            corners: [SIMD2(0, 0), SIMD2(2, 0), SIMD2(2, 2), SIMD2(0, 2)], dimensions: SIMD2(9, 9))
        let walls = RoomBuilder.walls(outline: [SIMD2(0, 0), SIMD2(5, 0), SIMD2(5, 5)], height: 2)
        let s = try derive(Room(walls: walls, floors: [flat, none, square]))
        XCTAssertEqual(s.floorAreaMethod, .floorPolygon)
        XCTAssertEqual(s.estimatedFloorAreaSqm, 2.5 * 4 + 0.5 + 4, accuracy: 1e-12)
        XCTAssertEqual(s.volumeM3, (10 + 0.5 + 4) * 2, accuracy: 1e-12)
        XCTAssertEqual(s.roomShape, "triangular")
        // The polygon comes from the first floor only.
        XCTAssertEqual(s.floorPolygon2D.count, 2)
    }

    func testWallsThatDoNotCloseAreOutlined() throws {
        // A 4 × 2 rectangle whose walls stop 1 m short of its corner (4, 2): no loop; v2 closes
        // the gap at that corner, v1's hull of the ends cut it off (7.5 m²).
        let walls = [
            RoomBuilder.wall(from: SIMD2(3, 2), to: SIMD2(0, 2)),
            RoomBuilder.wall(from: SIMD2(0, 2), to: SIMD2(0, 0)),
            RoomBuilder.wall(from: SIMD2(0, 0), to: SIMD2(4, 0)),
            RoomBuilder.wall(from: SIMD2(4, 0), to: SIMD2(4, 1)),
        ]
        let s = try derive(Room(walls: walls))
        XCTAssertEqual(s.floorAreaMethod, .wallOutline)
        XCTAssertEqual(s.estimatedFloorAreaSqm, 8, accuracy: 1e-9)
        XCTAssertEqual(s.roomShape, "rectangular")
        let v1 = try SummaryDeriver.v1.derive(Room(walls: walls)).get()
        XCTAssertEqual(v1.floorAreaMethod, .wallHull)
        XCTAssertEqual(v1.estimatedFloorAreaSqm, 7.5, accuracy: 1e-9)
        // Three full sides of it (a U): the outline closes the open side and is the hull of the
        // ends, so v2 keeps the hull's area and method, as v1.
        let u = [walls[1], walls[2], RoomBuilder.wall(from: SIMD2(4, 0), to: SIMD2(4, 2))]
        let hull = try derive(Room(walls: u))
        XCTAssertEqual(hull.floorAreaMethod, .wallHull)
        XCTAssertEqual(hull.estimatedFloorAreaSqm, 8, accuracy: 1e-9)
        XCTAssertEqual(hull.jsonBytes(), try SummaryDeriver.v1.derive(Room(walls: u)).get().jsonBytes())
    }

    func testZeroLengthWallDirectionFallsBackToHullWithoutNaN() throws {
        var walls = RoomBuilder.walls(outline: [SIMD2(0, 0), SIMD2(3, 0), SIMD2(3, 3), SIMD2(0, 3)])
        var e = walls[2].transform.elements
        e[0] = 0; e[1] = 0; e[2] = 0  // column 0 zeroed: no direction
        walls[2].transform = Transform(e)
        XCTAssertNil(FloorArea.wallSegment(walls[2]))
        let s = try derive(Room(walls: walls))
        XCTAssertEqual(s.floorAreaMethod, .wallHull)
        XCTAssertTrue(s.estimatedFloorAreaSqm.isFinite)
        // Hull of the three good walls' ends (the square) plus the bad wall's centre (1.5, 3).
        XCTAssertEqual(s.estimatedFloorAreaSqm, 9, accuracy: 1e-9)
    }

    func testRoomShapeNames() {
        let names = (0...9).map { SummaryDeriver.roomShape(wallCount: $0) }
        XCTAssertEqual(
            names,
            [
                "partial", "partial", "partial", "triangular", "rectangular", "pentagonal",
                "L-shaped or hexagonal", "irregular (7 walls)", "irregular (8 walls)", "irregular (9 walls)",
            ])
        // The names made once (7 to 64 walls) and those made when asked read the same on either side.
        for count in [10, 63, 64, 65, 1_000, Int.max] {
            XCTAssertEqual(SummaryDeriver.roomShape(wallCount: count), "irregular (\(count) walls)")
        }
    }

    func testGeometryPrimitives() {
        XCTAssertEqual(FloorArea.shoelaceArea([SIMD2(0, 0), SIMD2(4, 0), SIMD2(4, 3)]), 6)
        XCTAssertEqual(FloorArea.shoelaceArea([SIMD2(0, 0), SIMD2(0, 3), SIMD2(4, 3)]), 6)  // clockwise
        XCTAssertEqual(FloorArea.shoelaceArea([SIMD2(0, 0), SIMD2(1, 1)]), 0)
        let pts: [SIMD2<Double>] = [
            SIMD2(0, 0), SIMD2(2, 0), SIMD2(1, 1), SIMD2(2, 2), SIMD2(0, 2), SIMD2(1, 0), SIMD2(2, 2),
        ]
        XCTAssertEqual(FloorArea.convexHullArea(pts), 4)
        XCTAssertEqual(FloorArea.convexHullArea([SIMD2(0, 0), SIMD2(1, 1), SIMD2(2, 2)]), 0)  // collinear
        XCTAssertTrue(FloorArea.convexHullArea([SIMD2(0, 0), SIMD2(1, 0), SIMD2(.nan, 1)]).isNaN)
        let seg = FloorArea.wallSegment(RoomBuilder.wall(from: SIMD2(1, 1), to: SIMD2(4, 5)))!
        XCTAssertEqual(seg.start.x, 1, accuracy: 1e-12)
        XCTAssertEqual(seg.start.y, 1, accuracy: 1e-12)
        XCTAssertEqual(seg.end.x, 4, accuracy: 1e-12)
        XCTAssertEqual(seg.end.y, 5, accuracy: 1e-12)
    }
}

extension FloorAreaDerivationTests {
    /// The hull as it was first written: a lower and an upper chain in arrays of their own, joined
    /// without their last points. `convexHull` builds both in one array; the ring must be the same.
    private func twoChainHull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        var sorted = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        var unique: [SIMD2<Double>] = []
        for p in sorted where unique.last != p { unique.append(p) }
        sorted = unique
        guard sorted.count >= 3 else { return [] }
        func cross(_ o: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [SIMD2<Double>] = []
        for p in sorted {
            while lower.count >= 2, cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 0 { lower.removeLast() }
            lower.append(p)
        }
        var upper: [SIMD2<Double>] = []
        for p in sorted.reversed() {
            while upper.count >= 2, cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 0 { upper.removeLast() }
            upper.append(p)
        }
        return Array(lower.dropLast()) + Array(upper.dropLast())
    }

    func testConvexHullIsTheTwoChainRing() {
        var generator = SplitMix64(seed: 2)
        var checked = 0
        for trial in 0..<3_000 {
            let count = trial % 40
            // Small integer grids (ties, duplicates, collinear runs) and scattered reals.
            let points: [SIMD2<Double>] = (0..<count).map { _ in
                trial % 2 == 0
                    ? SIMD2(
                        Double(Int.random(in: 0...4, using: &generator)),
                        Double(Int.random(in: 0...4, using: &generator)))
                    : SIMD2(
                        Double.random(in: -50...50, using: &generator), Double.random(in: -50...50, using: &generator))
            }
            XCTAssertEqual(FloorArea.convexHull(points), twoChainHull(points), "\(points)")
            checked += 1
        }
        let line = (0..<10).map { SIMD2(Double($0), 2 * Double($0)) }
        XCTAssertEqual(FloorArea.convexHull(line + line.reversed()), twoChainHull(line))
        XCTAssertEqual(checked, 3_000)
    }
}

/// A tiny seeded generator so shuffles are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
