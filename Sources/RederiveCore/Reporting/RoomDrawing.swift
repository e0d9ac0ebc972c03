/// A plan view of a raw room as SVG text: the room seen from above (world x to the right,
/// world z down), fitted to its bounding box whatever its transform.
///
/// Pure: raw room in, SVG text out; no I/O, no clock, no dictionary order, so the same room
/// gives the same bytes. What is drawn:
/// - the floor outline the summary's area comes from, filled, its method named
///   (`FloorArea.outline`: each floor's polygon, the `wall_loop` walk, the `wall_outline` or
///   the `wall_hull`), the `wall_outline`'s sides that close a gap between walls dashed;
/// - walls as thick segments (`FloorArea.wallSegment`: the same ends the derivation uses),
///   with square caps so that walls meet at the corners;
/// - doors, windows and openings as segments on their walls (each placed by its own
///   transform, which puts it in its wall's plane);
/// - objects as footprints (width × depth, placed by their transform), labelled by category;
/// - a scale bar in metres and, in the `.full` style, the summary's key figures below.
///
/// Hostile input stays bounded: at most `Limits` elements of each kind are drawn (the drawing
/// says how many were left out), an element with a coordinate that is not finite is left out
/// (and counted), every number is written from the fitted frame (a few hundred units at most),
/// and all text is XML-escaped with the characters XML forbids dropped.
public enum RoomDrawing {
    /// How much is drawn.
    public enum Style: Sendable {
        /// Title, plan, labels, scale bar and the key figures: `show --svg`, `summarize --svg-dir`.
        case full
        /// A small plan with a scale bar and no text besides: the preview's thumbnails.
        case thumbnail
    }

    /// The most elements of each kind one drawing holds; a room with more draws the first ones.
    public struct Limits: Sendable, Equatable {
        /// Walls drawn.
        public var walls: Int
        /// Doors, windows and openings drawn, all together.
        public var openings: Int
        /// Objects drawn (labels only for those whose label fits).
        public var objects: Int
        /// Floor-outline corners drawn, all outlines together (an outline with more is thinned
        /// evenly).
        public var outlinePoints: Int

        /// The limits of each style.
        public static func of(_ style: Style) -> Limits {
            switch style {
            case .full: Limits(walls: 1_000, openings: 1_000, objects: 500, outlinePoints: 4_000)
            case .thumbnail: Limits(walls: 250, openings: 250, objects: 150, outlinePoints: 1_000)
            }
        }
    }

    /// Drawn wall thickness in metres: RoomPlan gives walls no thickness (`dimensions[2]` is 0).
    static let wallThickness = 0.12
    /// Longest label or title text kept, in Unicode scalars (`RoomDrawingPlan.clipped`).
    static let maxText = 60

    /// The drawing of `room` as a standalone SVG document (no XML declaration, so it can also
    /// be placed inline in an HTML page). `title` (the room name) and `subtitle` (the record
    /// id) head the `.full` style; `deriver` gives the figures and the floor outline.
    /// `markedWallLength` marks the walls of that length (a preview's changed shortest or
    /// longest wall).
    public static func svg(
        _ room: Room, title: String? = nil, subtitle: String? = nil, style: Style = .full,
        deriver: SummaryDeriver = SummaryDeriver(), markedWallLength: Double? = nil
    ) -> String {
        var plan = RoomDrawingPlan(room: room, deriver: deriver, style: style, markedWallLength: markedWallLength)
        return plan.render(title: title, subtitle: subtitle)
    }
}

extension RoomDrawing {
    /// Maps world x/z metres into the SVG's units: the bounding box of what is drawn, centred
    /// in the plan box and scaled to fit it, aspect kept. Computed on halves (`p/2 − lo/2`,
    /// exact for nearby values), so that no difference of two finite coordinates overflows and
    /// a room far from the origin keeps its shape.
    struct Frame {
        /// The box's lower corner (x, z).
        var lower: SIMD2<Double>
        /// Half the box's size (x, z), in metres.
        var half: SIMD2<Double>
        /// Units per metre.
        var scale: Double
        /// The plan box's centre in units.
        var origin: SIMD2<Double>
        /// The drawn extent in units (width, height).
        var extent: SIMD2<Double>

        init(points: [SIMD2<Double>], box: SIMD2<Double>, origin: SIMD2<Double>) {
            var lo = SIMD2(Double.infinity, Double.infinity), hi = -lo
            for p in points where p.x.isFinite && p.y.isFinite {
                lo = SIMD2(Swift.min(lo.x, p.x), Swift.min(lo.y, p.y))
                hi = SIMD2(Swift.max(hi.x, p.x), Swift.max(hi.y, p.y))
            }
            if lo.x > hi.x { (lo, hi) = (.zero, .zero) }
            lower = lo
            half = hi / 2 - lo / 2
            let sx = half.x > 0 ? box.x / 2 / half.x : .infinity
            let sy = half.y > 0 ? box.y / 2 / half.y : .infinity
            var s = Swift.min(sx, sy)
            // One point, or a box too small for a finite scale: a metre spans the box.
            if !s.isFinite || s <= 0 { s = Swift.min(box.x, box.y) / 2 }
            scale = s
            self.origin = origin
            extent = SIMD2(Swift.min(box.x, half.x * s * 2), Swift.min(box.y, half.y * s * 2))
        }

        /// A world x/z point in units; nil when it is not finite there.
        func map(_ p: SIMD2<Double>) -> SIMD2<Double>? {
            let q = origin + (p / 2 - lower / 2) * (2 * scale) - half * scale
            return q.x.isFinite && q.y.isFinite ? q : nil
        }
    }

    /// A segment in world x/z from a transform's translation and column 0 (an element's local
    /// x axis), `width` long; nil when the axis has no usable direction.
    static func segment(_ transform: Transform, width: Double) -> (SIMD2<Double>, SIMD2<Double>)? {
        let surface = Surface(dimensions: SIMD3(width, 0, 0), transform: transform)
        return FloorArea.wallSegment(surface).map { ($0.start, $0.end) }
    }

    /// An object's footprint: its local x (width) and z (depth) extent placed by its transform.
    static func footprint(_ object: RoomObject) -> [SIMD2<Double>] {
        let w = object.dimensions.x / 2, d = object.dimensions.z / 2
        return [SIMD3(-w, 0, -d), SIMD3(w, 0, -d), SIMD3(w, 0, d), SIMD3(-w, 0, d)].map {
            let p = object.transform.apply(to: $0)
            return SIMD2(p.x, p.z)
        }
    }
}
