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
    /// `estimate` then keeps it only where it is not the hull of the ends (`outlineAgreesWithHull`).
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

/// The corners and sides `FloorArea.wallOutline` works on: walls, then the gaps' closures.
struct OutlineGraph {
    /// Union-find over 0..<count; each set is named by its lowest member.
    struct DisjointSets {
        var parent: [Int]

        init(count: Int) { parent = Array(0..<count) }

        mutating func find(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }

        mutating func join(_ a: Int, _ b: Int) {
            let (ra, rb) = (find(a), find(b))
            if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
        }
    }

    struct Edge {
        var u: Int
        var v: Int
        var closing: Bool
        /// For a wall: its index; the direction out of corner `u` and out of `v` along the wall.
        var wall: Int
    }

    let segments: [FloorArea.WallSegment]
    var corners: [SIMD2<Double>] = []
    var edges: [Edge] = []
    var adjacency: [[Int]] = []
    /// The corner of each wall end (2 per wall: start, end).
    var cornerOfEnd: [Int] = []

    /// Nil when an end is followed, in x, by `wallOutlineMaxCrowd` others within the tolerance.
    init?(_ segments: [FloorArea.WallSegment], tolerance: Double) {
        self.segments = segments
        let ends = segments.flatMap { [$0.start, $0.end] }
        // 1. Ends within the tolerance are one corner: union-find over pairs found by a sweep in x.
        var sets = DisjointSets(count: ends.count)
        let order = ends.indices.sorted { ends[$0].x != ends[$1].x ? ends[$0].x < ends[$1].x : $0 < $1 }
        let crowd = FloorArea.wallOutlineMaxCrowd
        if order.count > crowd {
            for k in 0..<(order.count - crowd) where !(ends[order[k + crowd]].x - ends[order[k]].x > tolerance) {
                return nil
            }
        }
        for (k, i) in order.enumerated() {
            for j in order[(k + 1)...] {
                if ends[j].x - ends[i].x > tolerance { break }
                if FloorArea.distance(ends[i], ends[j]) <= tolerance { sets.join(i, j) }
            }
        }
        // Corners numbered by their lowest end; each at the mean of its ends.
        var cornerOfRoot = [Int](repeating: -1, count: ends.count)
        var sums: [SIMD2<Double>] = []
        var counts: [Double] = []
        cornerOfEnd = ends.indices.map { i in
            let r = sets.find(i)
            if cornerOfRoot[r] < 0 {
                cornerOfRoot[r] = sums.count
                sums.append(.zero)
                counts.append(0)
            }
            let c = cornerOfRoot[r]
            sums[c] += ends[i]
            counts[c] += 1
            return c
        }
        corners = zip(sums, counts).map { $0 / $1 }
        adjacency = Array(repeating: [], count: corners.count)
        // 2. Each wall joins its two corners.
        for w in segments.indices {
            let u = cornerOfEnd[2 * w], v = cornerOfEnd[2 * w + 1]
            if u != v { addEdge(u, v, closing: false, wall: w) }
        }
    }

    mutating func addEdge(_ u: Int, _ v: Int, closing: Bool, wall: Int = -1) {
        adjacency[u].append(edges.count)
        adjacency[v].append(edges.count)
        edges.append(Edge(u: u, v: v, closing: closing, wall: wall))
    }

    /// The open chains, each as its two free corners (lowest first), ordered by their lowest
    /// corner; nil when a connected group has more than two free ends.
    func openChains() -> [(Int, Int)]? {
        var groups = DisjointSets(count: corners.count)
        for e in edges { groups.join(e.u, e.v) }
        var free: [Int: [Int]] = [:]
        for c in corners.indices where adjacency[c].count == 1 { free[groups.find(c), default: []].append(c) }
        var chains: [(Int, Int)] = []
        for ends in free.values {
            if ends.count > 2 { return nil }
            // One free end: a wall sticking out of a closed group, which adds no area.
            if ends.count == 2 { chains.append((ends[0], ends[1])) }
        }
        return chains.sorted { $0.0 < $1.0 }
    }

    /// The unit direction out of free corner `c` along its one wall; the main axis direction
    /// (of the four) within `wallOutlineAxisSnapDegrees` of it, if any.
    func outward(_ c: Int, axis: SIMD2<Double>?) -> SIMD2<Double> {
        let e = edges[adjacency[c][0]]
        let s = segments[e.wall]
        let d = cornerOfEnd[2 * e.wall] == c ? s.start - s.end : s.end - s.start
        let length = (d.x * d.x + d.y * d.y).squareRoot()
        guard length > 0 else { return .zero }
        let u = d / length
        if let a = axis {
            for candidate in [a, SIMD2(-a.y, a.x), -a, SIMD2(a.y, -a.x)]
            where u.x * candidate.x + u.y * candidate.y >= FloorArea.cosAxisSnap {
                return candidate
            }
        }
        return u
    }

    /// Links the open chains into one loop (see `FloorArea.wallOutline`, step 3) with closures.
    mutating func linkChains(_ chains: [(Int, Int)], tolerance: Double) {
        guard !chains.isEmpty else { return }
        let axis = FloorArea.dominantAxis(segments)
        // Directions read before any closure is added (a free corner has exactly one wall).
        var directions: [Int: SIMD2<Double>] = [:]
        for chain in chains {
            directions[chain.0] = outward(chain.0, axis: axis)
            directions[chain.1] = outward(chain.1, axis: axis)
        }
        func closure(_ p: Int, _ q: Int) -> [SIMD2<Double>] {
            FloorArea.gapClosure(
                from: corners[p], along: directions[p]!, to: corners[q], along: directions[q]!, tolerance: tolerance)
        }
        let links =
            chains.count <= FloorArea.wallOutlineExhaustiveChains
            ? shortestLinks(chains, closure: closure) : nearestLinks(chains)
        let closures = links.map { (p, q) in (p, q, closure(p, q)) }
        for (p, q, through) in closures {
            var from = p
            for point in through {
                corners.append(point)
                adjacency.append([])
                addEdge(from, corners.count - 1, closing: true)
                from = corners.count - 1
            }
            addEdge(from, q, closing: true)
        }
    }

    /// Every order of the chains after the first, each chain either way round (permutations in
    /// lexicographic order; for each, directions from all forward to all reversed, the first
    /// chain's the most significant): the links whose closures are shortest in total, the
    /// first found on ties.
    func shortestLinks(_ chains: [(Int, Int)], closure: (Int, Int) -> [SIMD2<Double>]) -> [(Int, Int)] {
        let k = chains.count
        var best: (length: Double, links: [(Int, Int)])? = nil
        // Each closure's length once: the orders share them (at most (2k)² of them).
        var lengths: [Int: Double] = [:]
        func length(_ p: Int, _ q: Int) -> Double {
            if let known = lengths[p * corners.count + q] { return known }
            let path = [corners[p]] + closure(p, q) + [corners[q]]
            let total = zip(path, path.dropFirst()).reduce(0) { $0 + FloorArea.distance($1.0, $1.1) }
            lengths[p * corners.count + q] = total
            return total
        }
        for order in Self.permutations(Array(1..<k)) {
            for flips in 0..<(1 << (k - 1)) {
                var sequence = [chains[0]]
                for (i, c) in order.enumerated() {
                    // The first chain of the order is the most significant bit, reversed when set.
                    let reversed = flips & (1 << (k - 2 - i)) != 0
                    sequence.append(reversed ? (chains[c].1, chains[c].0) : chains[c])
                }
                let links = (0..<k).map { (sequence[$0].1, sequence[($0 + 1) % k].0) }
                let total = links.reduce(0) { $0 + length($1.0, $1.1) }
                if best == nil || total < best!.length { best = (total, links) }
            }
        }
        return best?.links ?? []
    }

    /// The permutations of `items` in lexicographic order (of their positions).
    static func permutations(_ items: [Int]) -> [[Int]] {
        guard items.count > 1 else { return [items] }
        var out: [[Int]] = []
        for (i, head) in items.enumerated() {
            var rest = items
            rest.remove(at: i)
            for tail in permutations(rest) { out.append([head] + tail) }
        }
        return out
    }

    /// The chains linked greedily: from the first chain's second free end, each time to the
    /// nearest free end of a chain not yet linked (ties: the lowest corner), the last back.
    func nearestLinks(_ chains: [(Int, Int)]) -> [(Int, Int)] {
        var linked = [Bool](repeating: false, count: chains.count)
        linked[0] = true
        var current = chains[0].1
        var links: [(Int, Int)] = []
        for _ in 1..<chains.count {
            var best = (distance: Double.infinity, chain: -1, corner: Int.max, other: -1)
            for (i, chain) in chains.enumerated() where !linked[i] {
                for (near, far) in [(chain.0, chain.1), (chain.1, chain.0)] {
                    let d = FloorArea.distance(corners[current], corners[near])
                    if d < best.distance || (d == best.distance && near < best.corner) {
                        best = (d, i, near, far)
                    }
                }
            }
            // Finite corners, so some chain is always nearest.
            linked[best.chain] = true
            links.append((current, best.corner))
            current = best.other
        }
        links.append((current, chains[0].0))
        return links
    }

    /// The outer boundary, counter-clockwise: from the corner with the lowest x (then z, then
    /// number), always taking the side that turns furthest right; nil if the walk does not come
    /// back (it always does on a finite graph; the bound only guards the loop).
    func outerBoundary() -> FloorArea.WallOutline? {
        var start = -1
        for c in corners.indices where !adjacency[c].isEmpty {
            if start < 0 || corners[c].x < corners[start].x
                || (corners[c].x == corners[start].x && corners[c].y < corners[start].y)
            {
                start = c
            }
        }
        guard start >= 0 else { return nil }
        var points: [SIMD2<Double>] = []
        var closing: [Bool] = []
        var visited: [Int] = []
        var at = start
        var back = SIMD2<Double>(0, -1)
        var firstEdge = -1
        for _ in 0...(2 * edges.count + 1) {
            let backAngle = FloorArea.pseudoAngle(back)
            var best = (turn: Double.infinity, edge: Int.max)
            for e in adjacency[at] {
                let other = edges[e].u == at ? edges[e].v : edges[e].u
                var turn = FloorArea.pseudoAngle(corners[other] - corners[at]) - backAngle
                if turn <= 0 { turn += 4 }
                if turn < best.turn || (turn == best.turn && e < best.edge) { best = (turn, e) }
            }
            // Corners beyond the doubles' range (their means overflowed) compare as NaN: no side.
            guard best.edge != Int.max else { return nil }
            let e = best.edge
            if at == start && e == firstEdge {
                return FloorArea.WallOutline(points: points, closing: closing, corners: visited)
            }
            if firstEdge < 0 { firstEdge = e }
            visited.append(at)
            points.append(corners[at])
            closing.append(edges[e].closing)
            let next = edges[e].u == at ? edges[e].v : edges[e].u
            back = corners[at] - corners[next]
            at = next
        }
        return nil
    }

    /// Whether every corner of a wall lies inside `outline` or on it (within `tolerance` of a
    /// side): a group of walls outside it means the outline is not the room's. The outline's
    /// own corners are on it: only the others are tested (none, for most rooms).
    func everyCornerInside(_ outline: FloorArea.WallOutline, tolerance: Double) -> Bool {
        let ring = outline.points
        let n = ring.count
        var onOutline = [Bool](repeating: false, count: corners.count)
        for c in outline.corners { onOutline[c] = true }
        for c in corners.indices where !adjacency[c].isEmpty && !onOutline[c] {
            let p = corners[c]
            var inside = false
            var near = false
            for i in 0..<n {
                let a = ring[i], b = ring[i + 1 == n ? 0 : i + 1]
                if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
                if Self.distance(p, toSegment: a, b) <= tolerance {
                    near = true
                    break
                }
            }
            if !inside && !near { return false }
        }
        return true
    }

    static func distance(_ p: SIMD2<Double>, toSegment a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
        let ab = b - a
        let length2 = ab.x * ab.x + ab.y * ab.y
        let t = length2 > 0 ? min(max(((p - a).x * ab.x + (p - a).y * ab.y) / length2, 0), 1) : 0
        return FloorArea.distance(p, a + t * ab)
    }
}
