/// Derives a `RoomSummary` from a raw `Room` (<doc:RoomSummary>).
///
/// Pure: no I/O, no clocks, no varying globals, so the same room gives the same summary on
/// any machine, in any order, with any number of workers.
public struct SummaryDeriver: Sendable {
    /// The summary algorithm version stored with every summary. Bump on any output change,
    /// and add the bump's one-line note to `versionNotes`. A `make build-fixed` build
    /// (`simulatedFixBuilt`) writes `simulatedFixVersion` instead, a `make build-v1` build
    /// (`summaryV1Built`) version 1.
    public static let currentVersion = simulatedFixBuilt ? simulatedFixVersion : summaryV1Built ? 1 : 2

    /// What each summary version changed, one line per version: the previews show the notes
    /// of the versions between a record's stored summary and the one a derive would write.
    public static let versionNotes: [Int: String] = [
        1: "initial summary: spec v1 fields; floor area by floor_polygon > wall_loop (0.30 m) > wall_hull > none",
        2: "floorless rooms whose walls do not close: floor area (and volume_m3) from the walls' outline "
            + "with its gaps closed (wall_outline) instead of the convex hull of the wall ends (wall_hull), "
            + "where the two differ by more than the join tolerance and in area by more than noise",
        simulatedFixVersion:
            "simulated calculation fix (make build-fixed, for trying the backfill walkthrough): "
            + "shortest_wall_m ignores wall slivers under \(JSONText.number(sliverWidth)) m",
    ]

    /// Whether this binary was built with the simulated calculation fix (`make build-fixed`:
    /// `-Xswiftc -DREDERIVE_SIMULATED_FIX`). It only flips the default of `simulatedFix`:
    /// tests build the fixed deriver as a value (`SummaryDeriver.simulatedFixed`).
    #if REDERIVE_SIMULATED_FIX
    public static let simulatedFixBuilt = true
    #else
    public static let simulatedFixBuilt = false
    #endif
    /// Whether this binary was built to derive summary v1 (`make build-v1`: `-Xswiftc
    /// -DREDERIVE_SUMMARY_V1`), as builds before v2 did, to make a store to try the backfill
    /// walkthrough on. It only flips the defaults (version 1, `closesWallGaps` off): tests use
    /// `SummaryDeriver.v1`.
    #if REDERIVE_SUMMARY_V1
    public static let summaryV1Built = true
    #else
    public static let summaryV1Built = false
    #endif
    /// The summary version the simulated fix writes: a reserved number no real version reaches
    /// (real versions count up from 1 and stay below 1,000,000), so a store the simulated fix
    /// wrote is never mistaken for one a real release derived.
    public static let simulatedFixVersion = 1_000_000
    /// Walls narrower than this (metres) are slivers the simulated fix leaves out of `shortest_wall_m`.
    public static let sliverWidth = 0.25
    /// The deriver of a `make build-fixed` build, whatever this build is: the current derivation
    /// plus the simulated fix.
    public static var simulatedFixed: SummaryDeriver {
        SummaryDeriver(version: simulatedFixVersion, simulatedFix: true, closesWallGaps: true)
    }
    /// Summary v1 exactly as builds before v2 derived it, fingerprint included (a `make
    /// build-v1` build's deriver, whatever this build is).
    public static var v1: SummaryDeriver {
        SummaryDeriver(version: 1, simulatedFix: false, closesWallGaps: false)
    }

    /// The version recorded for what this deriver produces. The algorithm is the current one
    /// (v1's when `closesWallGaps` is off); the value exists so a bump (or a simulated one)
    /// changes `fingerprint`.
    public let version: Int
    /// Largest gap in metres between wall ends that the `wall_loop` walk still joins (and that
    /// `wall_outline` counts as one corner).
    public let wallJoinTolerance: Double
    /// The simulated calculation fix: `shortest_wall_m` ignores walls under `sliverWidth`.
    public let simulatedFix: Bool
    /// Summary v2's floor area: walls that do not close are outlined with their gaps closed
    /// (`wall_outline`) before the hull; off, v1's order (`wall_loop`, then `wall_hull`).
    public let closesWallGaps: Bool

    /// Identifies everything that changes the output: `"v<version>-"` followed by the
    /// 16 hex digits of the FNV-1a 64 hash of a descriptor of the algorithm and its
    /// parameters. Stored per record, so a forgotten version bump still marks records stale.
    /// Computed once: it is compared for every record.
    public let fingerprint: String

    /// Creates a deriver.
    public init(
        version: Int = SummaryDeriver.currentVersion, wallJoinTolerance: Double = 0.30,
        simulatedFix: Bool = SummaryDeriver.simulatedFixBuilt,
        closesWallGaps: Bool = !SummaryDeriver.summaryV1Built
    ) {
        self.version = version
        self.wallJoinTolerance = wallJoinTolerance
        self.simulatedFix = simulatedFix
        self.closesWallGaps = closesWallGaps
        self.fingerprint = Self.fingerprint(
            version: version, wallJoinTolerance: wallJoinTolerance, simulatedFix: simulatedFix,
            closesWallGaps: closesWallGaps)
    }

    private static func fingerprint(
        version: Int, wallJoinTolerance: Double, simulatedFix: Bool, closesWallGaps: Bool
    ) -> String {
        // Every number is written by its bit pattern so any change, however small, shows.
        func bits(_ value: Double) -> String { String(value.bitPattern, radix: 16) }
        let descriptor =
            "room-summary;version=\(version)"
            + (closesWallGaps
                ? ";floor_area=floor_polygon>wall_loop>wall_outline>wall_hull>none"
                : ";floor_area=floor_polygon>wall_loop>wall_hull>none")
            + ";wall_loop=start-minus-end,far-ends-only,nearest-tie-lowest-index"
            + ";wall_join_tolerance=\(bits(wallJoinTolerance))"
            // Only when on, so v1's fingerprint stays what v1 builds wrote.
            + (closesWallGaps
                ? ";wall_outline=corners-mean-of-ends"
                    + ",chains-shortest-up-to-\(FloorArea.wallOutlineExhaustiveChains)-else-nearest"
                    + ",closure-straight-corner-or-parallelogram,parallel-sin-\(bits(FloorArea.sinParallel))"
                    + ",corner-reach-\(bits(FloorArea.wallOutlineCornerReach))"
                    + ",axis-snap-cos-\(bits(FloorArea.cosAxisSnap))"
                    + ",outer-boundary-right-turns,max-walls-\(FloorArea.wallOutlineMaxWalls)"
                    + ",max-chains-\(FloorArea.wallOutlineMaxChains)"
                    + ",max-crowd-\(FloorArea.wallOutlineMaxCrowd)"
                    + ",hull-where-outline-agrees-within-join-tolerance"
                    + ",hull-where-areas-agree-within-band-\(bits(FloorArea.wallOutlineAreaBand))" : "")
            + ";json_rounding=2dp-schoolbook"
            // Only when on, so the fingerprint of the real derivation stays what it was.
            + (simulatedFix ? ";shortest_wall=ignores-under-\(bits(sliverWidth))" : "")
        var hash = RunningHash()
        hash.add(descriptor.utf8)
        return "v\(version)-" + hash.hex
    }

    /// Derives the summary, or a failure when a derived value is not finite
    /// (`non_finite_value`) or negative (`negative_value`); nothing of a failed
    /// derivation is meant to be written.
    public func derive(_ room: Room) -> Result<RoomSummary, DerivationFailure> {
        let walls = room.walls
        var ceiling = 0.0
        var wallArea = 0.0
        var perimeter = 0.0
        var longest = 0.0
        var shortest = 0.0
        var sawShortest = false
        for (i, wall) in walls.enumerated() {
            let width = wall.dimensions.x
            let height = wall.dimensions.y
            if i == 0 {
                ceiling = height
                longest = width
            } else {
                // Written out (not Swift.max/min) so NaN is not silently skipped.
                if height > ceiling || height.isNaN { ceiling = height }
                if width > longest || width.isNaN { longest = width }
            }
            if !(simulatedFix && width < Self.sliverWidth) {
                if !sawShortest || width < shortest || width.isNaN { shortest = width }
                sawShortest = true
            }
            wallArea += width * height
            perimeter += width
        }

        let (area, method) = FloorArea.estimate(
            room, wallJoinTolerance: wallJoinTolerance, closingGaps: closesWallGaps)
        let volume = area * ceiling

        var polygon: [SIMD2<Double>] = []
        if let floor = room.floors.first {
            polygon = FloorArea.worldCorners(floor)
            for point in polygon {
                // Coordinates may be negative, but must be finite, rounding included, to be
                // written as JSON numbers.
                if let failure = Self.nonFinite("floor_polygon_2d_m", point.x)
                    ?? Self.nonFinite("floor_polygon_2d_m", point.y)
                {
                    return .failure(failure)
                }
            }
        }

        // A closure, not a key path: a key path's projection costs more per object.
        let categories = ObjectCategories(counting: room.objects.lazy.map { $0.category })

        let summary = RoomSummary(
            wallCount: walls.count, doorCount: room.doors.count, windowCount: room.windows.count,
            openingCount: room.openings.count, objectCount: room.objects.count,
            ceilingHeightM: ceiling, estimatedFloorAreaSqm: area, floorAreaMethod: method,
            volumeM3: volume, totalWallAreaSqm: wallArea, perimeterM: perimeter,
            longestWallM: longest, shortestWallM: shortest,
            roomShape: Self.roomShape(wallCount: walls.count),
            objectCategories: categories, sectionLabels: room.sectionLabels,
            floorPolygon2D: polygon)
        // Every float field, from the one field table: finite (rounding included), not negative.
        // Rows read in place: copying each out of the table retained and released its references.
        let failure = RoomSummary.fields.withUnsafeBufferPointer { fields -> DerivationFailure? in
            for i in fields.indices {
                guard let value = fields[i].float(in: summary) else { continue }
                if let failure = Self.nonFinite(fields[i].key.rawValue, value) { return failure }
                if value < 0 {
                    return DerivationFailure(code: .negativeValue, message: "\(fields[i].key.rawValue) is negative")
                }
            }
            return nil
        }
        if let failure { return .failure(failure) }
        return .success(summary)
    }

    /// A `non_finite_value` failure when `value`, or its JSON form rounded to 2 decimals, is
    /// not finite: 1e307 is finite but `1e307 × 100` (the rounding's first step) is not, and
    /// the JSON would otherwise carry `null` while the column holds the number.
    static func nonFinite(_ name: String, _ value: Double) -> DerivationFailure? {
        if !value.isFinite {
            return DerivationFailure(code: .nonFiniteValue, message: "\(name) is not finite")
        }
        // `roundedForJSON(value)` is finite exactly when `value × 100` is: rounding and dividing
        // a finite number keep it finite. Checked so, without rounding (a libm call per value).
        if !(value * 100).isFinite {
            return DerivationFailure(
                code: .nonFiniteValue,
                message: "\(name) is not finite once rounded to 2 decimals (\(value))")
        }
        return nil
    }

    /// The spec's shape name for a wall count: 0-2 `partial`, 3 `triangular`, 4 `rectangular`,
    /// 5 `pentagonal`, 6 `L-shaped or hexagonal`, more `irregular (N walls)`.
    public static func roomShape(wallCount: Int) -> String {
        switch wallCount {
        case ...2: return "partial"
        case 3: return "triangular"
        case 4: return "rectangular"
        case 5: return "pentagonal"
        case 6: return "L-shaped or hexagonal"
        case 7..<(7 + irregularShapes.count): return irregularShapes[wallCount - 7]
        default: return "irregular (\(wallCount) walls)"
        }
    }

    /// The names of 7 to 64 walls, made once: a quarter of rooms have more than 6 walls, and
    /// each name made anew was a formatted, heap-allocated string per summary.
    private static let irregularShapes: [String] = (7...64).map { "irregular (\($0) walls)" }
}
