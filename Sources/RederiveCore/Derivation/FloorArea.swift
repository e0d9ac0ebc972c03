/// Pure geometry behind `estimated_floor_area_sqm` (<doc:RoomSummary>, "Floor area").
///
/// All functions are deterministic: same input, same bits out (fixed iteration order,
/// fixed tie-breaking), so a summary never depends on the machine or worker.
public enum FloorArea {
    /// A wall as a segment in world x/z. `start` is centre − direction × width/2,
    /// `end` is centre + direction × width/2.
    public struct WallSegment: Sendable, Equatable {
        /// The "first" end (centre − direction × width/2).
        public var start: SIMD2<Double>
        /// The other end (centre + direction × width/2).
        public var end: SIMD2<Double>

        /// Creates a segment from its two ends.
        public init(start: SIMD2<Double>, end: SIMD2<Double>) {
            self.start = start
            self.end = end
        }
    }

    /// Shoelace area `|Σ (x_i·y_{i+1} − x_{i+1}·y_i)| / 2` of a polygon (implicitly closed).
    /// Fewer than 3 points give 0.
    public static func shoelaceArea(_ points: [SIMD2<Double>]) -> Double {
        let n = points.count
        guard n >= 3 else { return 0 }
        var sum = 0.0
        for i in 0..<n {
            let a = points[i]
            let b = points[i + 1 == n ? 0 : i + 1]
            sum += a.x * b.y - b.x * a.y
        }
        return abs(sum) / 2
    }

    /// Sum over floors of each floor's polygon area on its local x/y; a floor with fewer
    /// than 3 corners counts `dimensions[0] × dimensions[1]` (its bounding rectangle).
    public static func floorPolygonArea(_ floors: [Surface]) -> Double {
        var total = 0.0
        for floor in floors {
            if floor.polygonCorners.count < 3 {
                total += floor.dimensions.x * floor.dimensions.y
            } else {
                total += shoelaceArea(floor.polygonCorners.map { SIMD2($0.x, $0.y) })
            }
        }
        return total
    }

    /// The wall's segment in world x/z: centre = translation (elements 12, 14), direction =
    /// column 0 (elements 0, 2) normalised, ends = centre ± direction × width/2.
    ///
    /// Returns nil when the direction is unusable (length ≤ 1e-12 or not finite): normalising
    /// it would give NaN, and a wall without a direction cannot be walked.
    public static func wallSegment(_ wall: Surface) -> WallSegment? {
        let e = wall.transform.elements
        let centre = SIMD2(e[12], e[14])
        let raw = SIMD2(e[0], e[2])
        let length = (raw.x * raw.x + raw.y * raw.y).squareRoot()
        guard length.isFinite, length > 1e-12 else { return nil }
        let half = raw / length * (wall.dimensions.x / 2)
        return WallSegment(start: centre - half, end: centre + half)
    }

    /// The `wall_loop` area, or nil when the walls do not close into one loop.
    ///
    /// Reading of the spec's walk (the spec's Bedroom3 figure, 11.81 m² with floors
    /// removed, is reproduced by every reading we tried, so we chose the most literal one):
    /// - wall 0's "first end" is `start` (centre − direction × width/2); walk to its `end`;
    /// - the next wall is the unused wall with an end nearest the current point (ties: the
    ///   lowest wall index, then its `start` before its `end`); if that distance is at most
    ///   `tolerance`, walk to its far end;
    /// - the visited points are wall 0's first end and then the far end of every wall taken
    ///   (near ends are not added: they lie within `tolerance` of the current point, and
    ///   adding them would only insert near-duplicate vertices); the closing point (within
    ///   `tolerance` of the start) is kept, the shoelace closes back to the start.
    /// Succeeds only when every wall is used and the walk ends within `tolerance` of its start.
    public static func wallLoopArea(_ segments: [WallSegment], tolerance: Double) -> Double? {
        guard let first = segments.first else { return nil }
        let n = segments.count
        var used = [Bool](repeating: false, count: n)
        used[0] = true
        var points: [SIMD2<Double>] = [first.start, first.end]
        points.reserveCapacity(n + 1)
        var current = first.end
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
            // bestIndex stays -1 when every distance is NaN/infinite: no loop.
            guard bestIndex >= 0, bestDistance <= tolerance else { return nil }
            used[bestIndex] = true
            current = bestFar
            points.append(current)
        }
        guard distance(current, first.start) <= tolerance else { return nil }
        return shoelaceArea(points)
    }

    /// Area of the convex hull of `points` (Andrew's monotone chain; collinear points
    /// dropped). Fewer than 3 distinct points give 0; any non-finite point gives NaN, so
    /// the deriver reports it instead of sorting garbage.
    public static func convexHullArea(_ points: [SIMD2<Double>]) -> Double {
        for p in points where !(p.x.isFinite && p.y.isFinite) { return .nan }
        var sorted = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        // Drop exact duplicates (sorted, so they are adjacent).
        var unique: [SIMD2<Double>] = []
        unique.reserveCapacity(sorted.count)
        for p in sorted where unique.last != p { unique.append(p) }
        sorted = unique
        guard sorted.count >= 3 else { return 0 }
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
        return shoelaceArea(Array(lower.dropLast()) + Array(upper.dropLast()))
    }

    /// The floor area and the method that produced it, per the spec's order:
    /// floors → `floor_polygon`; else fewer than 3 walls → `none` (0); else `wall_loop`
    /// if the walls close, else `wall_hull`.
    ///
    /// A wall whose direction is unusable (see `wallSegment`) makes the loop impossible
    /// (it cannot be walked), so such rooms go straight to the hull, where that wall
    /// contributes its centre as its only point.
    public static func estimate(_ room: Room, wallJoinTolerance: Double) -> (area: Double, method: FloorAreaMethod) {
        if !room.floors.isEmpty {
            return (floorPolygonArea(room.floors), .floorPolygon)
        }
        guard room.walls.count >= 3 else { return (0, .none) }
        var segments: [WallSegment] = []
        segments.reserveCapacity(room.walls.count)
        var hullPoints: [SIMD2<Double>] = []
        hullPoints.reserveCapacity(room.walls.count * 2)
        var allUsable = true
        for wall in room.walls {
            if let s = wallSegment(wall) {
                segments.append(s)
                hullPoints.append(s.start)
                hullPoints.append(s.end)
            } else {
                allUsable = false
                let e = wall.transform.elements
                hullPoints.append(SIMD2(e[12], e[14]))
            }
        }
        if allUsable, let area = wallLoopArea(segments, tolerance: wallJoinTolerance) {
            return (area, .wallLoop)
        }
        return (convexHullArea(hullPoints), .wallHull)
    }

    @inline(__always)
    private static func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
        let d = a - b
        return (d.x * d.x + d.y * d.y).squareRoot()
    }
}
