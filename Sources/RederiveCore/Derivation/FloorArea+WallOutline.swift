/// The `wall_outline` method of summary v2 (<doc:RoomSummary>, "Floor area"): the outer boundary
/// of the walls once the gaps between them are closed, for rooms whose walls do not walk into
/// one loop (a missing wall, an open end, a doorway without a wall segment, a junction).
///
/// Deterministic like the rest of `FloorArea`: fixed orders, fixed tie-breaking, and angles
/// compared by a pseudo-angle (pure arithmetic, no libm), so the same walls give the same bits.
extension FloorArea {
    /// A closed outline: its corners in order and, for each side (corner i to corner i + 1, the
    /// last one back to corner 0), whether it closes a gap (`true`: no wall runs along it).
    public struct WallOutline: Sendable, Equatable {
        /// The corners, counter-clockwise.
        public var points: [SIMD2<Double>]
        /// Per side: whether it closes a gap between walls instead of following one.
        public var closing: [Bool]
        /// The corner numbers the points are (for `OutlineGraph.everyCornerInside`).
        var corners: [Int] = []
    }

    /// Above this many walls `wall_outline` is not tried (the room falls back to `wall_hull`, as
    /// in v1): its end clustering and final check are quadratic in the worst case, and real
    /// rooms have tens of walls (the drawing draws at most 1,000 too).
    public static let wallOutlineMaxWalls = 1_000
    /// Above this many open chains of walls the gaps are not closed (`wall_hull`): the tour that
    /// links them is quadratic in chains.
    public static let wallOutlineMaxChains = 64
    /// The wall ends sorted by x, an end followed by this many others within the tolerance of
    /// its x (walls piled on one spot or one line, not a room): no outline (`wall_hull`). It
    /// bounds the corner search to this many pairs per end, so it stays linear in walls.
    public static let wallOutlineMaxCrowd = 65
    /// Two walls whose directions differ by less than this (degrees) are parallel for a gap's
    /// closure: the gap is closed straight.
    public static let wallOutlineParallelDegrees = 20.0
    /// The furthest (metres) a wall is extended to the corner where it meets the wall across a
    /// gap (a doorway's width and some): beyond it the two walls are taken as the sides of two
    /// missing walls instead (see `gapClosure`).
    public static let wallOutlineCornerReach = 1.5
    /// A free end's wall within this many degrees of the room's main axes (`dominantAxis`) is
    /// taken along that axis when its gap is closed: a long closure then does not carry the
    /// direction noise of a short wall.
    public static let wallOutlineAxisSnapDegrees = 5.0
    /// Up to this many open chains, every order of linking them is tried and the one whose
    /// closures are shortest in total kept; above, each links to the nearest free end.
    public static let wallOutlineExhaustiveChains = 5
    /// The width (metres) of a strip along the outline: where the hull's area lies within the
    /// area such a strip holds (this × the outline's perimeter) of the outline's area, the walls
    /// cannot tell the two apart and v1's hull area stands (`hullStands`). The outline's own
    /// area error at 5 cm of wall-end noise is about 0.7 cm × its perimeter (one standard
    /// deviation on the test shapes), so a hull within this is as near as the outline can tell.
    public static let wallOutlineAreaBand = 0.01

    /// The v2 floorless outline, or nil when no closed outline can be made (see the spec):
    /// 1. wall ends within `tolerance` of each other (transitively) are one corner, at their mean;
    /// 2. each wall joins its two corners (a wall whose ends are one corner is dropped);
    /// 3. a connected group of walls with two free ends (a corner of one wall) is an open chain;
    ///    one with more than two free ends gives nil; the open chains are linked into one loop:
    ///    up to `wallOutlineExhaustiveChains` chains, in the order (and direction) whose
    ///    closures are shortest in total (the first found on ties, in the spec's order); above,
    ///    from the chain of the lowest corner, each time to the nearest free end of a chain not
    ///    yet linked (ties: the lowest corner), the last back to the first;
    /// 4. each link from free end P (wall direction a, pointing out of the wall) to free end Q
    ///    (direction b) is closed by `gapClosure`;
    /// 5. the outline is the outer boundary of walls and closures, walked from the corner with
    ///    the lowest x (then z), always turning as far right as possible; nil when a corner lies
    ///    outside it (a group of walls apart from the rest) or its area is not positive.
    /// `estimate` then keeps it only where the hull of the ends does not stand (`hullStands`).
    public static func wallOutline(_ segments: [WallSegment], tolerance: Double) -> WallOutline? {
        let n = segments.count
        guard n >= 3, n <= wallOutlineMaxWalls, tolerance >= 0, tolerance.isFinite else { return nil }
        for s in segments where !(s.start.x.isFinite && s.start.y.isFinite && s.end.x.isFinite && s.end.y.isFinite) {
            return nil
        }
        guard var graph = OutlineGraph(segments, tolerance: tolerance) else { return nil }
        guard let chains = graph.openChains(), chains.count <= wallOutlineMaxChains else { return nil }
        graph.linkChains(chains, tolerance: tolerance)
        guard let outline = graph.outerBoundary() else { return nil }
        let area = shoelaceArea(outline.points)
        guard area.isFinite, area > 0, graph.everyCornerInside(outline, tolerance: tolerance) else { return nil }
        return outline
    }

    /// Whether v2 keeps the hull's area (v1's `wall_hull`) for a room with this outline and
    /// hull: the two are one polygon up to the join `tolerance` (`outlineAgreesWithHull`), or
    /// their areas differ by no more than `wallOutlineAreaBand` × the outline's perimeter. The
    /// second is for a hull that is another polygon with the same area, up to noise (an L
    /// without the two walls at the outer corner of its narrow arm, its inner corner halfway
    /// along the wide arm: the hull cuts off as much as it adds): the outline's free ends and
    /// closures carry the wall ends' noise, so its area is nearer only by chance there, and a
    /// value the walls cannot show wrong is not rewritten.
    public static func hullStands(
        _ outline: [SIMD2<Double>], _ hull: [SIMD2<Double>], tolerance: Double
    ) -> Bool {
        guard !outlineAgreesWithHull(outline, hull, tolerance: tolerance) else { return true }
        guard !outline.isEmpty, !hull.isEmpty else { return false }
        let perimeter = zip(outline, outline.dropFirst() + outline.prefix(1)).reduce(0) { $0 + distance($1.0, $1.1) }
        return abs(shoelaceArea(hull) - shoelaceArea(outline)) <= wallOutlineAreaBand * perimeter
    }

    /// Whether the outline and the convex hull of the wall ends are one polygon up to the join
    /// `tolerance`: every corner of each lies within `tolerance` of the other's boundary (an
    /// empty polygon agrees with nothing). Then the walls' outline is convex, the hull (v1's
    /// `wall_hull`) measures the same room, and v2 keeps the hull's area: from the same noisy
    /// ends, the outline's corners (means, free ends) are not nearer the truth than the hull's
    /// outermost ends in every room, only on average, and a room v1 measured right keeps v1's
    /// value. Where they differ by more (a concave part, a missing corner the hull cuts off or
    /// fills in, a wall sticking out), the hull is wrong and the outline is kept.
    ///
    /// Each corner's search for a near side starts at the side the previous corner found: both
    /// polygons run counter-clockwise, so where they agree it is found within a side or two
    /// (linear in corners, where scanning every side took 0.7 s on a debug build for a ring of
    /// 999 walls); where they do not, the first corner that is far gives `false` after one scan.
    public static func outlineAgreesWithHull(
        _ outline: [SIMD2<Double>], _ hull: [SIMD2<Double>], tolerance: Double
    ) -> Bool {
        guard !outline.isEmpty, !hull.isEmpty else { return false }
        func near(_ points: [SIMD2<Double>], _ ring: [SIMD2<Double>]) -> Bool {
            let n = ring.count
            var start = 0
            return points.allSatisfy { p in
                for k in 0..<n {
                    let i = (start + k) % n
                    if OutlineGraph.distance(p, toSegment: ring[i], ring[i + 1 == n ? 0 : i + 1]) <= tolerance {
                        start = i
                        return true
                    }
                }
                return false
            }
        }
        return near(outline, hull) && near(hull, outline)
    }

    /// The corners a gap's closure passes through, from free end `p` (its wall pointing out along
    /// `a`, a unit vector) to free end `q` (along `b`); empty for a straight closure.
    /// - parallel walls (within `wallOutlineParallelDegrees`): straight (a missing wall between them);
    /// - else with X where the two walls' lines cross, `p + s·a = q + t·b`: straight when |s| or
    ///   |t| is at most `tolerance` (one end already lies on the other wall's line: the gap is a
    ///   missing piece of that wall); X when 0 < s, t ≤ `wallOutlineCornerReach` (both walls
    ///   stop short of their corner, by a doorway or so); otherwise p + q − X, the fourth corner
    ///   of the parallelogram p, X, q (the walls on either side of two missing walls, which
    ///   meet at that corner).
    public static func gapClosure(
        from p: SIMD2<Double>, along a: SIMD2<Double>, to q: SIMD2<Double>, along b: SIMD2<Double>,
        tolerance: Double
    ) -> [SIMD2<Double>] {
        let denominator = cross(a, b)
        guard abs(denominator) >= sinParallel else { return [] }
        let d = q - p
        let s = cross(d, b) / denominator
        let t = cross(d, a) / denominator
        guard s.isFinite, t.isFinite, min(abs(s), abs(t)) > tolerance else { return [] }
        let x = p + s * a
        return s > 0 && t > 0 && max(s, t) <= wallOutlineCornerReach ? [x] : [p + q - x]
    }

    /// sin of `wallOutlineParallelDegrees` (20°), written out so no libm call decides a closure.
    static let sinParallel = 0.3420201433256687
    /// cos of `wallOutlineAxisSnapDegrees` (5°), written out likewise.
    static let cosAxisSnap = 0.9961946980917455

    /// The room's main axis as a unit vector (the other is perpendicular to it): the mean of the
    /// walls' directions with their angles multiplied by 4 (so walls at right angles agree),
    /// weighted by length, then the angle divided by 4 again; by double- and half-angle
    /// formulas, no trigonometry. Nil when the walls cancel out (no main axis).
    static func dominantAxis(_ segments: [WallSegment]) -> SIMD2<Double>? {
        var sum = SIMD2<Double>.zero
        for s in segments {
            let d = s.end - s.start
            let length = (d.x * d.x + d.y * d.y).squareRoot()
            guard length > 0, length.isFinite else { continue }
            let (c, n) = (d.x / length, d.y / length)
            let (c2, n2) = (c * c - n * n, 2 * c * n)
            sum += length * SIMD2(c2 * c2 - n2 * n2, 2 * c2 * n2)
        }
        let r = (sum.x * sum.x + sum.y * sum.y).squareRoot()
        guard r > 0, r.isFinite else { return nil }
        var (c, n) = (sum.x / r, sum.y / r)
        for _ in 0..<2 {
            let half = ((max(0, (1 + c) / 2)).squareRoot(), (max(0, (1 - c) / 2)).squareRoot())
            (c, n) = (half.0, n < 0 ? -half.1 : half.1)
        }
        return SIMD2(c, n)
    }

    @inline(__always)
    static func cross(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { a.x * b.y - a.y * b.x }

    /// A monotone stand-in for the angle of `d` counter-clockwise from +x, in [0, 4) (0 for a
    /// zero vector): exact arithmetic, so comparisons do not depend on a platform's atan2.
    static func pseudoAngle(_ d: SIMD2<Double>) -> Double {
        let sum = abs(d.x) + abs(d.y)
        guard sum > 0 else { return 0 }
        let p = d.x / sum
        return d.y < 0 ? 3 + p : 1 - p
    }
}
