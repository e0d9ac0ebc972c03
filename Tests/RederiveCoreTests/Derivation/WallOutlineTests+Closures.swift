import Foundation
import XCTest
@testable import RederiveCore
import RederiveCorpus
@testable import RederiveTestSupport

/// The outline's closures across gaps, its limits and hostile walls (`WallOutlineTests`' second half).
extension WallOutlineTests {

    func testGapClosures() {
        let t = 0.30
        // Parallel walls (a missing wall between them): straight.
        XCTAssertEqual(
            FloorArea.gapClosure(
                from: SIMD2(4, 0), along: SIMD2(0, -1), to: SIMD2(0, 0), along: SIMD2(0, -1), tolerance: t),
            [])
        // Both walls stop short of their corner (1 m and 0.5 m): the corner.
        XCTAssertEqual(
            FloorArea.gapClosure(
                from: SIMD2(0, 1), along: SIMD2(0, -1), to: SIMD2(0.5, 0), along: SIMD2(-1, 0), tolerance: t),
            [SIMD2(0, 0)])
        // One end already on the other wall's line (0.2 m short): straight.
        XCTAssertEqual(
            FloorArea.gapClosure(
                from: SIMD2(0, 4), along: SIMD2(0, -1), to: SIMD2(0.2, 0), along: SIMD2(-1, 0), tolerance: t),
            [])
        // Two missing walls meeting at a concave corner (the L without its inner walls): that corner.
        XCTAssertEqual(
            FloorArea.gapClosure(
                from: SIMD2(3, 5.5), along: SIMD2(1, 0), to: SIMD2(6, 3), along: SIMD2(0, 1), tolerance: t),
            [SIMD2(3, 3)])
        // Two missing walls meeting at a convex corner: the parallelogram's fourth corner.
        XCTAssertEqual(
            FloorArea.gapClosure(
                from: SIMD2(6, 0), along: SIMD2(0, -1), to: SIMD2(0, 5), along: SIMD2(-1, 0), tolerance: t),
            [SIMD2(0, 0)])
    }

    func testClosingSidesAreMarkedAndTheWalkIsCounterClockwise() throws {
        // An L of five walls (the top one missing): its hull would cut the inner corner off.
        let walls = [
            RoomBuilder.wall(from: SIMD2(0, 3), to: SIMD2(0, 0)), RoomBuilder.wall(from: SIMD2(0, 0), to: SIMD2(4, 0)),
            RoomBuilder.wall(from: SIMD2(4, 0), to: SIMD2(4, 2)), RoomBuilder.wall(from: SIMD2(4, 2), to: SIMD2(2, 2)),
            RoomBuilder.wall(from: SIMD2(2, 2), to: SIMD2(2, 3)),
        ]
        let outline = FloorArea.outline(Room(walls: walls), wallJoinTolerance: 0.30)
        XCTAssertEqual(outline.method, .wallOutline)
        XCTAssertEqual(
            outline.polygons, [[SIMD2(0, 0), SIMD2(4, 0), SIMD2(4, 2), SIMD2(2, 2), SIMD2(2, 3), SIMD2(0, 3)]])
        XCTAssertEqual(outline.closing, [[false, false, false, false, true, false]])
        // v1's order draws the hull, with no side closing a gap.
        let v1 = FloorArea.outline(Room(walls: walls), wallJoinTolerance: 0.30, closingGaps: false)
        XCTAssertEqual(v1.method, .wallHull)
        XCTAssertEqual(v1.closing, [[false, false, false, false, false]])
        // A U of three walls (the top one missing): the outline is the hull, v2 draws the hull too.
        let u = Array(walls.prefix(2)) + [RoomBuilder.wall(from: SIMD2(4, 0), to: SIMD2(4, 3))]
        XCTAssertNotNil(FloorArea.wallOutline(u.compactMap(FloorArea.wallSegment), tolerance: 0.30))
        XCTAssertEqual(FloorArea.outline(Room(walls: u), wallJoinTolerance: 0.30).method, .wallHull)
    }

    /// The outline is kept only where it is not the hull of the wall ends up to the tolerance.
    func testTheOutlineAgreesWithTheHullOnlyUpToTheTolerance() {
        let square = [SIMD2<Double>(0, 0), SIMD2(4, 0), SIMD2(4, 4), SIMD2(0, 4)]
        // Every corner of each within 0.30 m of the other's sides, both ways.
        XCTAssertTrue(FloorArea.outlineAgreesWithHull(square, square, tolerance: 0.30))
        let inset = square.map { $0 * 0.95 + SIMD2(0.1, 0.1) }
        XCTAssertTrue(FloorArea.outlineAgreesWithHull(inset, square, tolerance: 0.30))
        // A notch 0.31 m deep, or a hull corner 0.31 m beyond the outline: not the hull.
        let notched = [square[0], SIMD2(2, 0.31), square[1], square[2], square[3]]
        XCTAssertFalse(FloorArea.outlineAgreesWithHull(notched, square, tolerance: 0.30))
        XCTAssertTrue(FloorArea.outlineAgreesWithHull(notched, square, tolerance: 0.32))
        let beyond = [square[0], square[1], SIMD2(4.31, 4.31), square[3]]
        XCTAssertFalse(FloorArea.outlineAgreesWithHull(square, beyond, tolerance: 0.30))
        XCTAssertFalse(FloorArea.outlineAgreesWithHull(beyond, square, tolerance: 0.30))
        XCTAssertFalse(FloorArea.outlineAgreesWithHull(square, [], tolerance: 0.30))
    }

    /// The hull's area also stands where it is the outline's up to a strip 1 cm wide along the
    /// outline, as another polygon.
    func testTheHullsAreaStandsWithinABandOfTheOutlinesArea() throws {
        // The L without the two walls at the outer corner of its narrow arm: the hull cuts off
        // as much as it adds, 25.5 m² as the L's; the L's perimeter is 23 m, a band of 0.23 m².
        let l = [SIMD2<Double>(0, 0), SIMD2(6, 0), SIMD2(6, 3), SIMD2(3, 3), SIMD2(3, 5.5), SIMD2(0, 5.5)]
        func hull(_ top: Double) -> [SIMD2<Double>] { [SIMD2(0, 0), SIMD2(6, 0), SIMD2(6, 3), SIMD2(0, top)] }
        XCTAssertEqual(FloorArea.shoelaceArea(hull(5.5)), FloorArea.shoelaceArea(l), accuracy: 1e-12)
        XCTAssertFalse(FloorArea.outlineAgreesWithHull(l, hull(5.5), tolerance: 0.30))
        XCTAssertTrue(FloorArea.hullStands(l, hull(5.5), tolerance: 0.30))
        // Its top corner 7 cm higher adds 0.21 m², 8 cm higher 0.24 m².
        XCTAssertTrue(FloorArea.hullStands(l, hull(5.57), tolerance: 0.30))
        XCTAssertFalse(FloorArea.hullStands(l, hull(5.58), tolerance: 0.30))
        XCTAssertFalse(FloorArea.hullStands(l, hull(5.42), tolerance: 0.30))
        // One polygon up to the tolerance stands whatever the areas; nothing stands for an empty one.
        let square = [SIMD2<Double>(0, 0), SIMD2(4, 0), SIMD2(4, 4), SIMD2(0, 4)]
        XCTAssertTrue(FloorArea.hullStands(square, square.map { $0 * 1.05 }, tolerance: 0.30))
        XCTAssertFalse(FloorArea.hullStands([], hull(5.5), tolerance: 0.30))
        // That L's walls: the area and the drawing are the hull's, v1's.
        let walls = [
            RoomBuilder.wall(from: l[0], to: l[1]), RoomBuilder.wall(from: l[1], to: l[2]),
            RoomBuilder.wall(from: l[2], to: l[3]), RoomBuilder.wall(from: l[5], to: l[0]),
        ]
        let s = try area(Room(walls: walls), SummaryDeriver())
        XCTAssertEqual(s.floorAreaMethod, .wallHull)
        XCTAssertEqual(s.estimatedFloorAreaSqm, 25.5, accuracy: 1e-9)
        let drawn = FloorArea.outline(Room(walls: walls), wallJoinTolerance: 0.30)
        XCTAssertEqual(drawn.method, .wallHull)
        XCTAssertEqual(drawn.closing, [[false, false, false, false]])
    }

    func testJunctionsStubsAndApartGroups() throws {
        // A 4 × 3 room with a free-standing inner wall and a stub sticking out of a corner: v1's
        // walk cannot use them (the hull takes in the stub's end); the outline is the room.
        var walls = RoomBuilder.walls(outline: [SIMD2(0, 0), SIMD2(4, 0), SIMD2(4, 3), SIMD2(0, 3)])
        walls.insert(RoomBuilder.wall(from: SIMD2(2, 0.5), to: SIMD2(2, 2.5)), at: 1)
        walls.append(RoomBuilder.wall(from: SIMD2(4, 3), to: SIMD2(5, 4)))
        var s = try area(Room(walls: walls), SummaryDeriver())
        XCTAssertEqual(s.floorAreaMethod, .wallOutline)
        XCTAssertEqual(s.estimatedFloorAreaSqm, 12, accuracy: 1e-9)
        XCTAssertEqual(try area(Room(walls: walls), SummaryDeriver.v1).floorAreaMethod, .wallHull)
        // Split at junctions (three walls meet at (2, 0) and at (2, 3)): one closed group, its outer boundary.
        walls = [
            RoomBuilder.wall(from: SIMD2(0, 0), to: SIMD2(2, 0)), RoomBuilder.wall(from: SIMD2(2, 0), to: SIMD2(4, 0)),
            RoomBuilder.wall(from: SIMD2(4, 0), to: SIMD2(4, 3)), RoomBuilder.wall(from: SIMD2(4, 3), to: SIMD2(2, 3)),
            RoomBuilder.wall(from: SIMD2(2, 3), to: SIMD2(0, 3)), RoomBuilder.wall(from: SIMD2(0, 3), to: SIMD2(0, 0)),
            RoomBuilder.wall(from: SIMD2(2, 0), to: SIMD2(2, 3)),
        ]
        let junctions = try XCTUnwrap(FloorArea.wallOutline(walls.compactMap(FloorArea.wallSegment), tolerance: 0.30))
        XCTAssertEqual(FloorArea.shoelaceArea(junctions.points), 12, accuracy: 1e-9)
        // That outline is the hull of the ends: the hull's area, as v1's.
        s = try area(Room(walls: walls), SummaryDeriver())
        XCTAssertEqual(s.floorAreaMethod, .wallHull)
        XCTAssertEqual(s.estimatedFloorAreaSqm, 12, accuracy: 1e-9)
        // A second closed room apart from it: no outline holds both, the hull.
        let apart = RoomBuilder.walls(outline: [SIMD2(10, 0), SIMD2(12, 0), SIMD2(12, 2), SIMD2(10, 2)])
        s = try area(Room(walls: walls + apart), SummaryDeriver())
        XCTAssertEqual(s.floorAreaMethod, .wallHull)
        // A group of walls with three free ends (a T of walls): no outline, the hull.
        let tee = [
            RoomBuilder.wall(from: SIMD2(0, 0), to: SIMD2(2, 0)), RoomBuilder.wall(from: SIMD2(2, 0), to: SIMD2(4, 0)),
            RoomBuilder.wall(from: SIMD2(2, 0), to: SIMD2(2, 3)),
        ]
        XCTAssertEqual(try area(Room(walls: tee), SummaryDeriver()).floorAreaMethod, .wallHull)
    }

    func testOverTheWallLimitTheHullIsUsed() throws {
        // A zigzag of 1,001 walls that does not close.
        let n = FloorArea.wallOutlineMaxWalls + 1
        let walls = (0..<n).map { (i: Int) -> Surface in
            let x = Double(i), up = Double(i % 2)
            let a = SIMD2<Double>(x, up), b = SIMD2<Double>(x + 1, 1 - up)
            return RoomBuilder.wall(from: a, to: b)
        }
        XCTAssertEqual(try area(Room(walls: walls), SummaryDeriver()).floorAreaMethod, .wallHull)
        XCTAssertEqual(
            try area(Room(walls: Array(walls.prefix(n - 1))), SummaryDeriver()).floorAreaMethod, .wallOutline)
    }

    /// Hostile coordinates: walls near the doubles' limits, whose corners' means or closures
    /// overflow, never crash and never give a value that is not finite (the hull or a failure).
    func testHugeCoordinatesNeverCrash() {
        let layouts: [[FloorArea.WallSegment]] = [
            // A closed triangle whose first corner's mean overflows to x = −infinity (two ends at
            // −1.7e308): every side's direction from it is NaN.
            [
                .init(start: SIMD2(-1.7e308, 0), end: SIMD2(0, 0)), .init(start: SIMD2(0, 0), end: SIMD2(0, 1)),
                .init(start: SIMD2(0, 1), end: SIMD2(-1.7e308, 0)),
            ],
            [
                .init(start: SIMD2(1.7e308, 1.7e308), end: SIMD2(1.7e308, 1.7e308)),
                .init(start: SIMD2(1.7e308, 1.7e308), end: SIMD2(-1.7e308, 1.7e308)),
                .init(start: SIMD2(-1.7e308, -1.7e308), end: SIMD2(1.7e308, -1.7e308)),
            ],
            [
                .init(start: SIMD2(-1e300, 0), end: SIMD2(1e300, 0)),
                .init(start: SIMD2(1e300, 1), end: SIMD2(0, 1e300)),
                .init(start: SIMD2(0, 1e300), end: SIMD2(-1e300, 5)),
            ],
        ]
        for (i, layout) in layouts.enumerated() {
            for tolerance in [0.30, 0, 1e300] {
                if let outline = FloorArea.wallOutline(layout, tolerance: tolerance) {
                    let area = FloorArea.shoelaceArea(outline.points)
                    XCTAssertTrue(area.isFinite && area > 0, "layout \(i), tolerance \(tolerance): \(area)")
                }
            }
        }
    }

    /// Random walls (crossing, overlapping, repeated, of zero length, in any number of groups):
    /// an outline, when there is one, is a finite positive area; the same walls give the same bits.
    func testRandomWallsGiveAFiniteOutlineOrNone() {
        var rng = SplitMix64(seed: 99)
        func coordinate() -> Double { Double(rng.next() % 2_001) / 200 - 5 }
        var outlined = 0
        for trial in 0..<1_500 {
            var walls: [FloorArea.WallSegment] = []
            for _ in 0..<(3 + Int(rng.next() % 10)) {
                let a = SIMD2(coordinate(), coordinate())
                switch rng.next() % 4 {
                case 0 where !walls.isEmpty: walls.append(.init(start: walls[walls.count - 1].end, end: a))
                case 1 where !walls.isEmpty: walls.append(walls[Int(rng.next() % UInt64(walls.count))])
                case 2: walls.append(.init(start: a, end: a))
                default: walls.append(.init(start: a, end: SIMD2(coordinate(), coordinate())))
                }
            }
            let tolerance = [0.30, 0, 1, 3][trial % 4]
            let outline = FloorArea.wallOutline(walls, tolerance: tolerance)
            XCTAssertEqual(outline, FloorArea.wallOutline(walls, tolerance: tolerance), "trial \(trial)")
            guard let outline else { continue }
            outlined += 1
            let area = FloorArea.shoelaceArea(outline.points)
            XCTAssertTrue(area.isFinite && area > 0, "trial \(trial): \(area)")
            XCTAssertEqual(outline.points.count, outline.closing.count, "trial \(trial)")
        }
        XCTAssertGreaterThan(outlined, 150)
    }

    func testWallsPiledOnOneSpotGiveNoOutline() throws {
        // A U of three walls, closed by one side; with 66 walls piled across its open side (66
        // ends at x = 2, one followed by 65 others), none.
        let u: [FloorArea.WallSegment] = [
            .init(start: SIMD2(0, 3), end: SIMD2(0, 0)), .init(start: SIMD2(0, 0), end: SIMD2(4, 0)),
            .init(start: SIMD2(4, 0), end: SIMD2(4, 3)),
        ]
        let pile = (0..<66).map { i in FloorArea.WallSegment(start: SIMD2(2, 1), end: SIMD2(3, 1 + Double(i) / 100)) }
        XCTAssertNotNil(FloorArea.wallOutline(u, tolerance: 0.30))
        XCTAssertNil(FloorArea.wallOutline(u + pile, tolerance: 0.30))
        let star = (0..<1_000).map { i in RoomBuilder.wall(from: SIMD2(0, 0), to: SIMD2(Double(i % 7) + 1, 1)) }
        XCTAssertEqual(try area(Room(walls: star), SummaryDeriver()).floorAreaMethod, .wallHull)
    }

    /// Hand measurement of a derive of floorless rooms that do not close, up to the 10,000 walls
    /// a record may have: `REDERIVE_MEASURE_WALK=1 swift test --filter WallOutlineTests`.
    func testMeasureLargeOpenRoomsByHand() throws {
        guard ProcessInfo.processInfo.environment["REDERIVE_MEASURE_WALK"] != nil else {
            throw XCTSkip("set REDERIVE_MEASURE_WALK=1 to print timings")
        }
        for n in [100, 1_000, 10_000] {
            // A noisy circle of n walls with one wall missing, and the same walls all ending at one point.
            var rng = SplitMix64(seed: 1)
            let circle = (0..<n - 1).map { i -> Surface in
                let a = Double(i) / Double(n) * 2 * .pi, b = Double(i + 1) / Double(n) * 2 * .pi
                let r = Double(n) / 10, jitter = Double(rng.next() % 100) / 10_000
                return RoomBuilder.wall(from: SIMD2(cos(a), sin(a)) * r, to: SIMD2(cos(b), sin(b)) * (r + jitter))
            }
            let star = (0..<n).map { i in RoomBuilder.wall(from: SIMD2(0, 0), to: SIMD2(Double(i % 7) + 1, 1)) }
            for (name, walls) in [("circle", circle), ("star", star)] {
                for (version, deriver) in [("v1", SummaryDeriver.v1), ("v2", SummaryDeriver())] {
                    let started = Date()
                    let s = try area(Room(walls: walls), deriver)
                    let seconds = Date().timeIntervalSince(started)
                    print("\(name) of \(walls.count) walls, \(version): \(s.floorAreaMethod.rawValue), \(seconds) s")
                }
            }
        }
    }
}
