import Foundation
import XCTest
@testable import RederiveCore

/// The grid-indexed `wall_loop` walk against the plain quadratic walk it replaced (issue 8,
/// point 2): same choice of walls, ties included, on random and adversarial layouts.
final class WallLoopWalkTests: XCTestCase {
    /// The walk as first written: every unused wall scanned at every step, O(N²).
    static func quadraticWallLoopArea(_ segments: [FloorArea.WallSegment], tolerance: Double) -> Double? {
        guard let first = segments.first else { return nil }
        let n = segments.count
        var used = [Bool](repeating: false, count: n)
        used[0] = true
        var points: [SIMD2<Double>] = [first.start, first.end]
        var current = first.end
        func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
            let d = a - b
            return (d.x * d.x + d.y * d.y).squareRoot()
        }
        for _ in 1..<max(n, 1) {
            var bestDistance = Double.infinity
            var bestIndex = -1
            var bestFar = current
            for i in 0..<n where !used[i] {
                let s = segments[i]
                let ds = distance(current, s.start)
                if ds < bestDistance { bestDistance = ds; bestIndex = i; bestFar = s.end }
                let de = distance(current, s.end)
                if de < bestDistance { bestDistance = de; bestIndex = i; bestFar = s.start }
            }
            guard bestIndex >= 0, bestDistance <= tolerance else { return nil }
            used[bestIndex] = true
            current = bestFar
            points.append(current)
        }
        guard distance(current, first.start) <= tolerance else { return nil }
        return FloorArea.shoelaceArea(points)
    }

    private func assertSameWalk(
        _ segments: [FloorArea.WallSegment], tolerance: Double = 0.30, _ tag: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let expected = Self.quadraticWallLoopArea(segments, tolerance: tolerance)
        // The walk as the deriver runs it (a scan below `gridFromWallCount` walls, the grid from
        // there on), and each search forced, whatever the count.
        let walks = [
            ("as derived", FloorArea.wallLoopArea(segments, tolerance: tolerance)),
            ("grid", FloorArea.wallLoopPoints(segments, tolerance: tolerance, grid: true).map(FloorArea.shoelaceArea)),
            ("scan", FloorArea.wallLoopPoints(segments, tolerance: tolerance, grid: false).map(FloorArea.shoelaceArea)),
        ]
        for (walk, actual) in walks {
            // Same walk, same points, same order: bit-identical areas.
            XCTAssertEqual(
                actual?.bitPattern, expected?.bitPattern,
                "\(tag), \(walk): \(String(describing: actual)) vs \(String(describing: expected))",
                file: file, line: line)
        }
    }

    private func segment(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> FloorArea.WallSegment {
        FloorArea.WallSegment(start: a, end: b)
    }

    func testRandomPolygonsWithJitterAndShuffledWallsWalkTheSame() {
        var rng = SystemRandomNumberGenerator()
        for trial in 0..<400 {
            let n = Int.random(in: 3...40, using: &rng)
            let radius = Double.random(in: 0.5...20, using: &rng)
            let jitter = [0, 0.05, 0.2, 0.35][trial % 4]
            let outline = (0..<n).map { i -> SIMD2<Double> in
                let angle = Double(i) / Double(n) * 2 * .pi
                return SIMD2(cos(angle), sin(angle)) * radius
            }
            var segments = outline.indices.map { i -> FloorArea.WallSegment in
                func j() -> SIMD2<Double> {
                    SIMD2(Double.random(in: -jitter...jitter), Double.random(in: -jitter...jitter))
                }
                let a = outline[i] + j(), b = outline[(i + 1) % n] + j()
                return Bool.random(using: &rng) ? segment(a, b) : segment(b, a)
            }
            segments.shuffle(using: &rng)
            assertSameWalk(segments, "trial \(trial)")
        }
    }

    func testTiesGoToTheLowestIndexThenToStart() {
        // Several walls whose ends coincide exactly: the tie-breaking decides the walk.
        let p = SIMD2<Double>(1, 0), q = SIMD2<Double>(1, 1), r = SIMD2<Double>(0, 1), o = SIMD2<Double>(0, 0)
        let layouts: [[FloorArea.WallSegment]] = [
            [segment(o, p), segment(q, p), segment(p, q), segment(q, r), segment(r, o), segment(q, r)],
            [segment(o, p), segment(p, p), segment(p, p), segment(p, q), segment(q, r), segment(r, o)],
            [segment(o, p), segment(q, p), segment(r, q), segment(o, r)],
            [segment(o, o), segment(o, o), segment(o, o)],
        ]
        for (i, layout) in layouts.enumerated() {
            assertSameWalk(layout, "layout \(i)")
            assertSameWalk(layout, tolerance: 0, "layout \(i), tolerance 0")
        }
    }

    func testCellBordersNegativeZeroAndHugeOrNonFiniteEndsWalkTheSame() {
        let t = 0.30
        let layouts: [[FloorArea.WallSegment]] = [
            // Ends exactly one tolerance apart across cell borders (2 × tolerance wide).
            [
                segment(SIMD2(0, 0), SIMD2(0.6, 0)), segment(SIMD2(0.9, 0), SIMD2(0.9, 0.6)),
                segment(SIMD2(0.9, 0.9), SIMD2(0, 0.9)), segment(SIMD2(-0.0, 0.6), SIMD2(-0.0, 0.3)),
            ],
            [
                segment(SIMD2(-0.0, -0.0), SIMD2(1, 0)), segment(SIMD2(1, 0), SIMD2(0, 1)),
                segment(SIMD2(0, 1), SIMD2(0, 0)),
            ],
            [
                segment(SIMD2(1e300, 0), SIMD2(-1e300, 0)), segment(SIMD2(-1e300, 0), SIMD2(0, 1e300)),
                segment(SIMD2(0, 1e300), SIMD2(1e300, 0)),
            ],
            [
                segment(SIMD2(1.7e308, 0), SIMD2(0, 0)), segment(SIMD2(0, 0), SIMD2(1.7e308, 0)),
                segment(SIMD2(1.7e308, 0), SIMD2(1.7e308, 0)),
            ],
            [
                segment(SIMD2(0, 0), SIMD2(1, 0)), segment(SIMD2(1, 0), SIMD2(.nan, 0)),
                segment(SIMD2(.infinity, 0), SIMD2(0, 0)),
            ],
        ]
        for (i, layout) in layouts.enumerated() {
            for tolerance in [t, 0, 1e-9] {
                assertSameWalk(layout, tolerance: tolerance, "layout \(i) tolerance \(tolerance)")
            }
        }
    }

    func testChainedWallsWalkTheSame() {
        let chain = (0..<2_000).map { i in segment(SIMD2(Double(i), 0), SIMD2(Double(i + 1), 0)) }
        assertSameWalk(chain, "chain")
        assertSameWalk(chain.reversed(), "reversed chain")
    }

    /// Hand measurement of the walk on the chained walls, before (quadratic) and
    /// after (grid): `REDERIVE_MEASURE_WALK=1 swift test --filter WallLoopWalkTests`.
    func testMeasureChainedWallsByHand() throws {
        guard ProcessInfo.processInfo.environment["REDERIVE_MEASURE_WALK"] != nil else {
            throw XCTSkip("set REDERIVE_MEASURE_WALK=1 to print timings")
        }
        for n in [10_000, 80_000] {
            let chain = (0..<n).map { i in segment(SIMD2(Double(i), 0), SIMD2(Double(i + 1), 0)) }
            var started = Date()
            _ = FloorArea.wallLoopArea(chain, tolerance: 0.30)
            let grid = Date().timeIntervalSince(started)
            started = Date()
            _ = Self.quadraticWallLoopArea(chain, tolerance: 0.30)
            let quadratic = Date().timeIntervalSince(started)
            print("chained walls \(n): grid \(grid) s, quadratic \(quadratic) s")
        }
    }
}
