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
        // Arrays sized once: a room's outline is made for every floorless room whose walls do
        // not close, and each array grown (or made per wall) was an allocation more.
        var ends: [SIMD2<Double>] = []
        ends.reserveCapacity(2 * segments.count)
        for s in segments {
            ends.append(s.start)
            ends.append(s.end)
        }
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
        sums.reserveCapacity(ends.count)
        counts.reserveCapacity(ends.count)
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
        edges.reserveCapacity(segments.count + 8)
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
        // Each group's free ends by its root, in corner order: the first two, and how many.
        var firstFree = [Int](repeating: -1, count: corners.count)
        var secondFree = firstFree
        var freeCount = [Int](repeating: 0, count: corners.count)
        for c in corners.indices where adjacency[c].count == 1 {
            let root = groups.find(c)
            freeCount[root] += 1
            if freeCount[root] > 2 { return nil }
            if freeCount[root] == 1 { firstFree[root] = c } else { secondFree[root] = c }
        }
        var chains: [(Int, Int)] = []
        // One free end: a wall sticking out of a closed group, which adds no area.
        for root in corners.indices where freeCount[root] == 2 { chains.append((firstFree[root], secondFree[root])) }
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
            // The four axis directions in turn (no array of them made per free end).
            for k in 0..<4 {
                let candidate = k == 0 ? a : k == 1 ? SIMD2(-a.y, a.x) : k == 2 ? -a : SIMD2(a.y, -a.x)
                if u.x * candidate.x + u.y * candidate.y >= FloorArea.cosAxisSnap { return candidate }
            }
        }
        return u
    }

    /// Links the open chains into one loop (see `FloorArea.wallOutline`, step 3) with closures.
    mutating func linkChains(_ chains: [(Int, Int)], tolerance: Double) {
        guard !chains.isEmpty else { return }
        let axis = FloorArea.dominantAxis(segments)
        // Directions read before any closure is added (a free corner has exactly one wall).
        var directions = [SIMD2<Double>](repeating: .zero, count: corners.count)
        for chain in chains {
            directions[chain.0] = outward(chain.0, axis: axis)
            directions[chain.1] = outward(chain.1, axis: axis)
        }
        func closure(_ p: Int, _ q: Int) -> [SIMD2<Double>] {
            FloorArea.gapClosure(
                from: corners[p], along: directions[p], to: corners[q], along: directions[q], tolerance: tolerance)
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
            // Along the closure's corners, summed from the first side on (no array of the path).
            var total = 0.0
            var from = corners[p]
            for point in closure(p, q) {
                total += FloorArea.distance(from, point)
                from = point
            }
            total += FloorArea.distance(from, corners[q])
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
        points.reserveCapacity(corners.count)
        closing.reserveCapacity(corners.count)
        visited.reserveCapacity(corners.count)
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
