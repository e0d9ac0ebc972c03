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
        shoelaceArea(count: points.count) { points[$0] }
    }

    /// `shoelaceArea` of `count` points, point `i` being `point(i)`: points read where they are.
    @inline(__always)
    static func shoelaceArea(count n: Int, _ point: (Int) -> SIMD2<Double>) -> Double {
        guard n >= 3 else { return 0 }
        var sum = 0.0
        for i in 0..<n {
            let a = point(i)
            let b = point(i + 1 == n ? 0 : i + 1)
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
                // The corners' x/y read in place: no array of 2D points made per floor.
                let corners = floor.polygonCorners
                total += shoelaceArea(count: corners.count) { SIMD2(corners[$0].x, corners[$0].y) }
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
        let e = wall.transform
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
    ///
    /// Only an end within `tolerance` can be taken, so the search looks at those alone: wall
    /// ends are hashed into a grid of cells `2 × tolerance` wide (see `EndGrid`) and each step
    /// scans the 3 × 3 cells around the current point, O(N) expected for the whole walk
    /// instead of the O(N²) of scanning every wall at every step (80,000 chained walls took
    /// 18 s that way). The choice is the same: the nearest end wins, ties go to the lowest
    /// wall index, then to its `start`. A tolerance that is negative or not finite joins nothing.
    public static func wallLoopArea(_ segments: [WallSegment], tolerance: Double) -> Double? {
        wallLoopPoints(segments, tolerance: tolerance).map(shoelaceArea)
    }

    /// The points the `wall_loop` walk visits (see `wallLoopArea`), the polygon whose shoelace
    /// area is the `wall_loop` area; nil when the walls do not close into one loop.
    public static func wallLoopPoints(_ segments: [WallSegment], tolerance: Double) -> [SIMD2<Double>]? {
        wallLoopPoints(segments, tolerance: tolerance, grid: segments.count >= gridFromWallCount)
    }

    /// From this many walls on, the walk searches a grid (`EndGrid`); below, it scans every
    /// unused wall, the walk as first written, whose choices the grid reproduces: for a room's
    /// dozen walls, hashing ends into cells cost more than the scans it saves (a derive spent
    /// 2.5% of its time in the grid's dictionary).
    static let gridFromWallCount = 33

    /// The walk, with the grid (`grid: true`) or by scanning; `WallLoopWalkTests` holds both to
    /// the same choices on the same layouts.
    static func wallLoopPoints(
        _ segments: [WallSegment], tolerance: Double, grid useGrid: Bool
    )
        -> [SIMD2<Double>]?
    {
        guard let first = segments.first, tolerance >= 0, tolerance.isFinite else { return nil }
        let n = segments.count
        var grid = useGrid ? EndGrid(segments: segments, tolerance: tolerance) : nil
        var used = useGrid ? [] : [Bool](repeating: false, count: n)
        grid?.markUsed(0)
        if !useGrid { used[0] = true }
        var points: [SIMD2<Double>] = []
        points.reserveCapacity(n + 1)
        points.append(first.start)
        points.append(first.end)
        var current = first.end
        for _ in 1..<max(n, 1) {
            // nil when no unused end lies within the tolerance (or the point is not finite).
            let next =
                useGrid
                ? grid?.nearestEnd(to: current)
                : scanNearestEnd(segments, used: used, to: current, tolerance: tolerance)
            guard let (index, far) = next else { return nil }
            grid?.markUsed(index)
            if !useGrid { used[index] = true }
            current = far
            points.append(current)
        }
        guard distance(current, first.start) <= tolerance else { return nil }
        return points
    }

    /// The unused wall with an end nearest `point`, by scanning them all (ties: the lowest
    /// index, then its `start`; NaN distances never win), if within `tolerance`; and its far end.
    static func scanNearestEnd(
        _ segments: [WallSegment], used: [Bool], to point: SIMD2<Double>, tolerance: Double
    ) -> (Int, SIMD2<Double>)? {
        var bestDistance = Double.infinity
        var bestIndex = -1
        var bestFar = point
        for i in segments.indices where !used[i] {
            let s = segments[i]
            let ds = distance(point, s.start)
            if ds < bestDistance { (bestDistance, bestIndex, bestFar) = (ds, i, s.end) }
            let de = distance(point, s.end)
            if de < bestDistance { (bestDistance, bestIndex, bestFar) = (de, i, s.start) }
        }
        guard bestIndex >= 0, bestDistance <= tolerance else { return nil }
        return (bestIndex, bestFar)
    }

    /// Wall ends hashed by grid cell, for the `wall_loop` walk's nearest-end search.
    ///
    /// Cells are `2 × tolerance` wide, so two points within `tolerance` of each other are in
    /// the same or adjacent cells even after the rounding of `x / cellSize`; cell indices are
    /// kept as doubles (`floor(x / cellSize)`), so huge coordinates never overflow an integer.
    /// Used walls are dropped from a cell when it is next scanned, so each entry is removed
    /// at most once.
    struct EndGrid {
        struct Cell: Hashable {
            var x: UInt64
            var y: UInt64
        }

        /// One wall end: the wall's index, and whether it is the wall's `end` (else `start`).
        struct Entry {
            var wall: Int32
            var isEnd: Bool
        }

        let segments: [WallSegment]
        let tolerance: Double
        let cellSize: Double
        var cells: [Cell: [Entry]] = [:]
        var used: [Bool]

        init(segments: [WallSegment], tolerance: Double) {
            self.segments = segments
            self.tolerance = tolerance
            // A zero tolerance still needs a cell size: any positive one is correct.
            cellSize = tolerance > 0 ? 2 * tolerance : 1
            used = [Bool](repeating: false, count: segments.count)
            cells.reserveCapacity(segments.count * 2)
            for (i, s) in segments.enumerated() {
                // A non-finite end is never within the tolerance of anything: not indexed.
                if let c = cellIndex(s.start) {
                    cells[cell(c.x, c.y), default: []].append(Entry(wall: Int32(i), isEnd: false))
                }
                if let c = cellIndex(s.end) {
                    cells[cell(c.x, c.y), default: []].append(Entry(wall: Int32(i), isEnd: true))
                }
            }
        }

        mutating func markUsed(_ wall: Int) { used[wall] = true }

        /// The unused wall with an end nearest `point` (within the tolerance; ties: lowest
        /// index, then `start`), and that wall's far end.
        mutating func nearestEnd(to point: SIMD2<Double>) -> (Int, SIMD2<Double>)? {
            guard let c = cellIndex(point) else { return nil }
            var bestDistance = Double.infinity
            var bestIndex = Int.max
            var bestIsEnd = true
            var seen: [Cell] = []
            seen.reserveCapacity(9)
            for dx in stride(from: -1.0, through: 1, by: 1) {
                for dy in stride(from: -1.0, through: 1, by: 1) {
                    // At huge magnitudes x ± 1 == x: visit each distinct cell once.
                    let key = cell(c.x + dx, c.y + dy)
                    if seen.contains(key) { continue }
                    seen.append(key)
                    guard var entries = cells[key] else { continue }
                    entries.removeAll { used[Int($0.wall)] }
                    cells[key] = entries.isEmpty ? nil : entries
                    for entry in entries {
                        let s = segments[Int(entry.wall)]
                        let d = FloorArea.distance(point, entry.isEnd ? s.end : s.start)
                        let index = Int(entry.wall)
                        // NaN distances never win (every comparison is false).
                        if d < bestDistance
                            || (d == bestDistance
                                && (index < bestIndex || (index == bestIndex && !entry.isEnd && bestIsEnd)))
                        {
                            bestDistance = d
                            bestIndex = index
                            bestIsEnd = entry.isEnd
                        }
                    }
                }
            }
            guard bestIndex != Int.max, bestDistance <= tolerance else { return nil }
            let s = segments[bestIndex]
            return (bestIndex, bestIsEnd ? s.start : s.end)
        }

        private func cellIndex(_ p: SIMD2<Double>) -> (x: Double, y: Double)? {
            guard p.x.isFinite, p.y.isFinite else { return nil }
            // A finite point beyond `cellSize × Double.greatestFiniteMagnitude` is clamped into
            // the outermost cell: distances are still exact, only that cell gets crowded.
            let limit = Double.greatestFiniteMagnitude
            let x = min(max((p.x / cellSize).rounded(.down), -limit), limit)
            let y = min(max((p.y / cellSize).rounded(.down), -limit), limit)
            return (x, y)
        }

        private func cell(_ x: Double, _ y: Double) -> Cell {
            // + 0 turns -0.0 into 0.0: one cell, one key.
            Cell(x: (x + 0).bitPattern, y: (y + 0).bitPattern)
        }
    }

    /// Area of the convex hull of `points` (Andrew's monotone chain; collinear points
    /// dropped). Fewer than 3 distinct points give 0; any non-finite point gives NaN, so
    /// the deriver reports it instead of sorting garbage.
    public static func convexHullArea(_ points: [SIMD2<Double>]) -> Double {
        guard let hull = convexHull(points) else { return .nan }
        return shoelaceArea(hull)
    }

    /// The convex hull of `points` counter-clockwise in x/y (Andrew's monotone chain;
    /// collinear points dropped): empty for fewer than 3 distinct points, nil when a point is
    /// not finite.
    public static func convexHull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>]? {
        for p in points where !(p.x.isFinite && p.y.isFinite) { return nil }
        var sorted = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        // Drop exact duplicates (sorted, so they are adjacent), in place.
        var kept = 0
        for i in sorted.indices where kept == 0 || sorted[kept - 1] != sorted[i] {
            sorted[kept] = sorted[i]
            kept += 1
        }
        sorted.removeLast(sorted.count - kept)
        guard sorted.count >= 3 else { return [] }
        func cross(_ o: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        // Both chains in one array (the upper one never pops a point of the lower one), sized
        // once: the lower chain, then the upper one from the rightmost point back to the
        // leftmost, which closes the ring and is dropped.
        var hull: [SIMD2<Double>] = []
        hull.reserveCapacity(2 * sorted.count)
        for p in sorted {
            while hull.count >= 2, cross(hull[hull.count - 2], hull[hull.count - 1], p) <= 0 { hull.removeLast() }
            hull.append(p)
        }
        let lowerCount = hull.count
        for p in sorted.reversed().dropFirst() {
            while hull.count > lowerCount, cross(hull[hull.count - 2], hull[hull.count - 1], p) <= 0 {
                hull.removeLast()
            }
            hull.append(p)
        }
        hull.removeLast()
        return hull
    }

    /// The floor area and the method that produced it, per the spec's order:
    /// floors → `floor_polygon`; else fewer than 3 walls → `none` (0); else `wall_loop`
    /// if the walls close; else (summary v2, `closingGaps`) `wall_outline` if the walls' outer
    /// boundary with its gaps closed can be made (`wallOutline`) and the hull of the wall ends
    /// does not stand for it (`hullStands`: one polygon up to the tolerance, or the same area up
    /// to noise); else `wall_hull`.
    /// `closingGaps: false` is summary v1's order, which went from `wall_loop` to `wall_hull`.
    ///
    /// A wall whose direction is unusable (see `wallSegment`) makes the loop and the outline
    /// impossible (it cannot be walked), so such rooms go straight to the hull, where that wall
    /// contributes its centre as its only point.
    public static func estimate(
        _ room: Room, wallJoinTolerance: Double, closingGaps: Bool = true
    ) -> (area: Double, method: FloorAreaMethod) {
        if !room.floors.isEmpty {
            return (floorPolygonArea(room.floors), .floorPolygon)
        }
        guard room.walls.count >= 3 else { return (0, .none) }
        let walls = WallOutlineInput(room.walls)
        if walls.allUsable, let area = wallLoopArea(walls.segments, tolerance: wallJoinTolerance) {
            return (area, .wallLoop)
        }
        if closingGaps, walls.allUsable, let outline = wallOutline(walls.segments, tolerance: wallJoinTolerance) {
            // An outline's ends are finite, so is their hull.
            let hull = convexHull(walls.hullPoints) ?? []
            guard hullStands(outline.points, hull, tolerance: wallJoinTolerance) else {
                return (shoelaceArea(outline.points), .wallOutline)
            }
            return (shoelaceArea(hull), .wallHull)
        }
        return (convexHullArea(walls.hullPoints), .wallHull)
    }

    /// The outline behind `estimate`'s area, in world x/z, for drawing it: each floor's world
    /// polygon (`worldPolygon`) for `floor_polygon`, the points the walk visits for
    /// `wall_loop`, the outline for `wall_outline`, the convex hull for `wall_hull` (none for
    /// `none`, or a hull that is not finite). Same order of choice, same tolerance, same walk
    /// as `estimate`. `closing` holds, per polygon and side (corner i to i + 1, the last back
    /// to the first), whether the side closes a gap between walls (only `wall_outline` has
    /// such sides; a hull is drawn as v1 drew it).
    public static func outline(
        _ room: Room, wallJoinTolerance: Double, closingGaps: Bool = true
    ) -> (polygons: [[SIMD2<Double>]], closing: [[Bool]], method: FloorAreaMethod) {
        if !room.floors.isEmpty {
            let polygons = room.floors.map(worldPolygon)
            return (polygons, polygons.map { [Bool](repeating: false, count: $0.count) }, .floorPolygon)
        }
        guard room.walls.count >= 3 else { return ([], [], .none) }
        let walls = WallOutlineInput(room.walls)
        if walls.allUsable, let points = wallLoopPoints(walls.segments, tolerance: wallJoinTolerance) {
            return ([points], [[Bool](repeating: false, count: points.count)], .wallLoop)
        }
        guard let hull = convexHull(walls.hullPoints) else { return ([], [], .wallHull) }
        if closingGaps, walls.allUsable, let outline = wallOutline(walls.segments, tolerance: wallJoinTolerance),
            !hullStands(outline.points, hull, tolerance: wallJoinTolerance)
        {
            return ([outline.points], [outline.closing], .wallOutline)
        }
        return ([hull], [[Bool](repeating: false, count: hull.count)], .wallHull)
    }

    /// A floor's corners in world x/z: each corner `[x, y, 0]` times the floor's transform,
    /// keeping world x and z (what `floor_polygon_2d_m` holds for the first floor).
    public static func worldCorners(_ floor: Surface) -> [SIMD2<Double>] {
        floor.polygonCorners.map { corner in
            let world = floor.transform.apply(to: SIMD3(corner.x, corner.y, 0))
            return SIMD2(world.x, world.z)
        }
    }

    /// The outline whose area `floorPolygonArea` counts for one floor, in world x/z: its
    /// `worldCorners`, or, for a floor with fewer than 3 corners (which counts
    /// `dimensions[0] × dimensions[1]`), that rectangle centred on the floor's local origin.
    public static func worldPolygon(_ floor: Surface) -> [SIMD2<Double>] {
        guard floor.polygonCorners.count < 3 else { return worldCorners(floor) }
        let w = floor.dimensions.x / 2, h = floor.dimensions.y / 2
        var rectangle = floor
        rectangle.polygonCorners = [SIMD3(-w, -h, 0), SIMD3(w, -h, 0), SIMD3(w, h, 0), SIMD3(-w, h, 0)]
        return worldCorners(rectangle)
    }

    /// The walls as the floorless methods read them: one segment per usable wall, and the
    /// hull's points (both ends of a usable wall, the centre of one without a direction).
    struct WallOutlineInput {
        var segments: [WallSegment] = []
        var hullPoints: [SIMD2<Double>] = []
        var allUsable = true

        init(_ walls: [Surface]) {
            segments.reserveCapacity(walls.count)
            hullPoints.reserveCapacity(walls.count * 2)
            for wall in walls {
                if let s = wallSegment(wall) {
                    segments.append(s)
                    hullPoints.append(s.start)
                    hullPoints.append(s.end)
                } else {
                    allUsable = false
                    let e = wall.transform
                    hullPoints.append(SIMD2(e[12], e[14]))
                }
            }
        }
    }

    @inline(__always)
    static func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
        let d = a - b
        return (d.x * d.x + d.y * d.y).squareRoot()
    }
}
