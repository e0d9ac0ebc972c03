/// A plan view of a raw room as SVG text: the room seen from above (world x to the right,
/// world z down), fitted to its bounding box whatever its transform.
///
/// Pure: raw room in, SVG text out; no I/O, no clock, no dictionary order, so the same room
/// gives the same bytes. What is drawn:
/// - the floor outline the summary's area comes from, filled, its method named
///   (`FloorArea.outline`: each floor's polygon, the `wall_loop` walk, or the `wall_hull`);
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
    /// Longest label or title text kept, in characters.
    static let maxText = 60

    /// The drawing of `room` as a standalone SVG document (no XML declaration, so it can also
    /// be placed inline in an HTML page). `title` (the room name) and `subtitle` (the record
    /// id) head the `.full` style; `deriver` gives the figures and the floor outline.
    public static func svg(
        _ room: Room, title: String? = nil, subtitle: String? = nil, style: Style = .full,
        deriver: SummaryDeriver = SummaryDeriver()
    ) -> String {
        var plan = Plan(room: room, deriver: deriver, style: style)
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

/// The drawing under construction: the room's elements in world metres, then written out.
private struct Plan {
    struct Line {
        var cls: String
        var a: SIMD2<Double>
        var b: SIMD2<Double>
        var title: String
    }

    struct Footprint {
        var category: String
        var corners: [SIMD2<Double>]
        var title: String
    }

    let style: RoomDrawing.Style
    let limits: RoomDrawing.Limits
    let summary: Result<RoomSummary, DerivationFailure>
    let method: FloorAreaMethod
    let counts: [(String, Int)]
    var outlines: [[SIMD2<Double>]] = []
    var walls: [Line] = []
    var openings: [Line] = []
    var objects: [Footprint] = []
    /// What was left out, as sentences for the drawing.
    var notes: [String] = []

    init(room: Room, deriver: SummaryDeriver, style: RoomDrawing.Style) {
        self.style = style
        limits = .of(style)
        summary = deriver.derive(room)
        counts = [
            ("walls", room.walls.count), ("doors", room.doors.count), ("windows", room.windows.count),
            ("openings", room.openings.count), ("objects", room.objects.count),
        ]
        let outline = FloorArea.outline(room, wallJoinTolerance: deriver.wallJoinTolerance)
        method = outline.method
        addOutlines(outline.polygons)

        var unusable = 0
        for wall in room.walls.prefix(limits.walls) {
            guard let (a, b) = RoomDrawing.segment(wall.transform, width: wall.dimensions.x) else {
                unusable += 1
                continue
            }
            let title = "wall " + Self.metres(wall.dimensions.x) + " × " + Self.metres(wall.dimensions.y)
            walls.append(Line(cls: "wall", a: a, b: b, title: title))
        }
        note(drawn: Swift.min(room.walls.count, limits.walls), of: room.walls.count, "walls")

        let kinds: [(String, String, [Surface])] = [
            ("door", "door", room.doors), ("window", "window", room.windows), ("passage", "opening", room.openings),
        ]
        var budget = limits.openings
        for (cls, name, surfaces) in kinds {
            let shown = surfaces.prefix(Swift.max(0, budget))
            budget -= shown.count
            for surface in shown {
                guard let (a, b) = RoomDrawing.segment(surface.transform, width: surface.dimensions.x) else {
                    unusable += 1
                    continue
                }
                let title = name + " " + Self.metres(surface.dimensions.x) + " × " + Self.metres(surface.dimensions.y)
                openings.append(Line(cls: "opening " + cls, a: a, b: b, title: title))
            }
            note(drawn: shown.count, of: surfaces.count, name == "opening" ? "openings" : name + "s")
        }

        for object in room.objects.prefix(limits.objects) {
            let corners = RoomDrawing.footprint(object)
            let category = Self.clipped(object.category)
            let title =
                category + " " + Self.metres(object.dimensions.x) + " × " + Self.metres(object.dimensions.z)
            objects.append(Footprint(category: category, corners: corners, title: title))
        }
        note(drawn: Swift.min(room.objects.count, limits.objects), of: room.objects.count, "objects")
        if unusable > 0 { notes.append("\(unusable) without a direction not drawn") }
    }

    private mutating func addOutlines(_ polygons: [[SIMD2<Double>]]) {
        let total = polygons.reduce(0) { $0 + $1.count }
        var budget = limits.outlinePoints
        for polygon in polygons where budget >= 3 && polygon.count >= 3 {
            var kept = polygon
            // Thinned evenly when over the budget: every k-th corner.
            let share = total > limits.outlinePoints ? Swift.max(3, polygon.count * limits.outlinePoints / total) : 0
            if share > 0, polygon.count > share {
                let step = (polygon.count + share - 1) / share
                kept = stride(from: 0, to: polygon.count, by: step).map { polygon[$0] }
            }
            kept = Array(kept.prefix(budget))
            budget -= kept.count
            outlines.append(kept)
        }
        if total > limits.outlinePoints {
            notes.append("outline thinned to \(limits.outlinePoints - budget) of \(total) corners")
        }
    }

    private mutating func note(drawn: Int, of total: Int, _ what: String) {
        if drawn < total { notes.append("drew \(drawn) of \(total) \(what)") }
    }

    // MARK: - Writing

    mutating func render(title: String?, subtitle: String?) -> String {
        let full = style == .full
        let width = full ? 480.0 : 240.0
        let margin = full ? 16.0 : 8.0
        let header = full ? 50.0 : 0.0
        let box = SIMD2(width - 2 * margin, width - 2 * margin)

        var points: [SIMD2<Double>] = outlines.flatMap { $0 }
        for line in walls + openings {
            points.append(line.a)
            points.append(line.b)
        }
        for object in objects { points += object.corners }
        // First fit, to learn the plan's height; then the plan box shrinks to it.
        let probe = RoomDrawing.Frame(points: points, box: box, origin: .zero)
        let planHeight = Swift.max(probe.extent.y, full ? 120 : 60) + 2 * margin
        let planTop = header
        let frame = RoomDrawing.Frame(
            points: points, box: SIMD2(box.x, planHeight - 2 * margin),
            origin: SIMD2(width / 2, planTop + planHeight / 2))
        let wallWidth = Swift.min(12, Swift.max(full ? 2.5 : 1.6, RoomDrawing.wallThickness * frame.scale))

        var body = ""
        var skipped = 0
        // Floor outline.
        for outline in outlines {
            let mapped = outline.compactMap(frame.map)
            guard mapped.count == outline.count else {
                skipped += 1
                continue
            }
            body +=
                "<polygon class=\"floor\" data-method=\"\(method.rawValue)\" points=\"\(Self.points(mapped))\" "
                + "fill=\"#e8f1fb\" stroke=\"#9fbfe0\" stroke-width=\"1\"><title>floor outline ("
                + method.rawValue + ")</title></polygon>\n"
        }
        // Objects under the walls.
        var labels: [(text: String, centre: SIMD2<Double>)] = []
        for object in objects {
            let mapped = object.corners.compactMap(frame.map)
            guard mapped.count == object.corners.count else {
                skipped += 1
                continue
            }
            body +=
                "<polygon class=\"object\" points=\"\(Self.points(mapped))\" fill=\"#d9dce3\" fill-opacity=\"0.8\" "
                + "stroke=\"#7d8595\" stroke-width=\"0.8\"><title>" + Self.text(object.title) + "</title></polygon>\n"
            labels.append((object.category, mapped.reduce(.zero, +) / Double(mapped.count)))
        }
        for wall in walls {
            guard let a = frame.map(wall.a), let b = frame.map(wall.b) else {
                skipped += 1
                continue
            }
            body +=
                "<line class=\"wall\" " + Self.ends(a, b) + " stroke=\"#2b2f36\" stroke-width=\"\(Self.n(wallWidth))\" "
                + "stroke-linecap=\"square\"><title>" + Self.text(wall.title) + "</title></line>\n"
        }
        for opening in openings {
            guard let a = frame.map(opening.a), let b = frame.map(opening.b) else {
                skipped += 1
                continue
            }
            let colour =
                opening.cls.hasSuffix("door") ? "#e07b24" : opening.cls.hasSuffix("window") ? "#3b9bd9" : "#52b365"
            body +=
                "<line class=\"\(opening.cls)\" " + Self.ends(a, b) + " stroke=\"\(colour)\" "
                + "stroke-width=\"\(Self.n(wallWidth + (full ? 2 : 1)))\"><title>" + Self.text(opening.title)
                + "</title></line>\n"
        }
        if skipped > 0 { notes.append("\(skipped) with coordinates out of range not drawn") }
        if full { body += placeLabels(labels, top: planTop, bottom: planTop + planHeight, width: width) }

        var y = planTop + planHeight
        body += scaleBar(frame: frame, x: margin, y: y + (full ? 4 : 0), full: full)
        y += full ? 34 : 22
        var headerText = ""
        if full {
            headerText += Self.label(
                x: margin, y: 24, size: 17, weight: "bold", Self.clipped(title ?? "Room", limit: 48))
            if let subtitle {
                headerText += Self.label(x: margin, y: 42, size: 11, fill: "#5b6475", Self.clipped(subtitle))
            }
            body += figures(x: margin, y: &y, width: width - 2 * margin)
        } else if !notes.isEmpty {
            body += Self.label(x: margin, y: y, size: 10, fill: "#b03030", "not all drawn")
            y += 8
        }
        let height = (y + margin / 2).rounded(.up)
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"room-plan\" width=\"\(Self.n(width))\" "
            + "height=\"\(Self.n(height))\" viewBox=\"0 0 \(Self.n(width)) \(Self.n(height))\" "
            + "font-family=\"system-ui, sans-serif\" role=\"img\">\n<title>"
            + Self.text(Self.clipped("Plan of " + (title ?? "a room") + (subtitle.map { " (\($0))" } ?? "")))
            + "</title>\n<rect class=\"background\" x=\"0\" y=\"0\" width=\"\(Self.n(width))\" "
            + "height=\"\(Self.n(height))\" fill=\"#ffffff\"/>\n" + headerText + body + "</svg>\n"
    }

    /// Category labels at their footprints' centres, nudged up or down when they would cover
    /// one already placed, left out when no place is free (the footprint's title still names it).
    private func placeLabels(
        _ labels: [(text: String, centre: SIMD2<Double>)], top: Double, bottom: Double, width: Double
    )
        -> String
    {
        var placed: [(lo: SIMD2<Double>, hi: SIMD2<Double>)] = []
        var out = ""
        let size = 10.0
        for (text, centre) in labels {
            let half = SIMD2(Double(text.count) * size * 0.29 + 2, size * 0.65)
            for dy in [0.0, 12, -12, 24, -24] {
                var c = centre + SIMD2(0, dy)
                c.x = Swift.min(Swift.max(c.x, half.x + 2), width - half.x - 2)
                let lo = c - half, hi = c + half
                guard lo.y >= top, hi.y <= bottom else { continue }
                if placed.contains(where: { lo.x < $0.hi.x && $0.lo.x < hi.x && lo.y < $0.hi.y && $0.lo.y < hi.y }) {
                    continue
                }
                placed.append((lo, hi))
                out += Self.label(
                    x: c.x, y: c.y + size * 0.35, size: size, anchor: "middle", fill: "#39404d", text, cls: "label")
                break
            }
        }
        return out
    }

    /// A bar of a round length (1, 2 or 5 × 10^k metres) at most a quarter of the plan wide.
    private func scaleBar(frame: RoomDrawing.Frame, x: Double, y: Double, full: Bool) -> String {
        let most = (full ? 120.0 : 70.0) / frame.scale
        var metres = 1.0
        if most.isFinite, most > 0 {
            let power = Double.pow10(Int((most.log10).rounded(.down)))
            metres = [5.0, 2, 1].map { $0 * power }.first { $0 <= most && $0.isFinite } ?? power
        }
        let length = metres * frame.scale
        guard length.isFinite, length > 0 else { return "" }
        let top = y + 6, tick = 5.0
        let stroke = "stroke=\"#2b2f36\" stroke-width=\"1.5\""
        var out = "<g class=\"scale-bar\">"
        out += "<line " + Self.ends(SIMD2(x, top + tick), SIMD2(x + length, top + tick)) + " \(stroke)/>"
        for end in [x, x + length] {
            out += "<line " + Self.ends(SIMD2(end, top), SIMD2(end, top + 2 * tick)) + " \(stroke)/>"
        }
        out += Self.label(x: x + length + 6, y: top + tick + 4, size: full ? 12 : 10, Self.metresLabel(metres))
        return out + "</g>\n"
    }

    /// The key figures, two columns of label and value, then a legend and what was left out.
    private func figures(x: Double, y: inout Double, width: Double) -> String {
        var rows: [(String, String)] = []
        // Full-width lines under the two columns: values too long for a column.
        var wide: [(String, String)] = []
        switch summary {
        case .success(let s):
            rows.append(("floor area", Self.figure(s.estimatedFloorAreaSqm, "m²")))
            rows.append(("method", s.floorAreaMethod.rawValue))
            rows.append(("perimeter", Self.figure(s.perimeterM, "m")))
            rows.append(("ceiling height", Self.figure(s.ceilingHeightM, "m")))
            rows.append(("volume", Self.figure(s.volumeM3, "m³")))
            wide.append(("shape", Self.clipped(s.roomShape, limit: 40)))
        case .failure(let failure):
            rows.append(("summary", "not derivable"))
            rows.append(("method", method.rawValue))
            wide.append(("why", Self.clipped(failure.code.rawValue + ": " + failure.message, limit: 44)))
        }
        for (name, count) in counts { rows.append((name, String(count))) }
        var out = "<g class=\"figures\">"
        let column = width / 2, lineHeight = 21.0, valueOffset = 104.0
        for (i, row) in rows.enumerated() {
            let cx = x + Double(i % 2) * column, cy = y + 15 + Double(i / 2) * lineHeight
            out += Self.label(x: cx, y: cy, size: 13, fill: "#5b6475", row.0)
            out += Self.label(x: cx + valueOffset, y: cy, size: 14, weight: "bold", row.1)
        }
        y += 15 + Double((rows.count + 1) / 2) * lineHeight
        for row in wide {
            out += Self.label(x: x, y: y, size: 13, fill: "#5b6475", row.0)
            out += Self.label(x: x + valueOffset, y: y, size: 14, weight: "bold", row.1)
            y += lineHeight
        }
        y += 2
        // Legend: a swatch and a name per kind.
        var lx = x
        for (name, colour) in [
            ("wall", "#2b2f36"), ("door", "#e07b24"), ("window", "#3b9bd9"), ("opening", "#52b365"),
            ("object", "#d9dce3"), ("floor", "#e8f1fb"),
        ] {
            out += "<rect x=\"\(Self.n(lx))\" y=\"\(Self.n(y - 5))\" width=\"15\" height=\"10\" fill=\"\(colour)\" "
            out += "stroke=\"#7d8595\" stroke-width=\"0.5\"/>"
            out += Self.label(x: lx + 19, y: y + 4, size: 12, fill: "#39404d", name)
            lx += 28 + Double(name.count) * 6.8
        }
        y += 18
        for note in notes {
            out += Self.label(
                x: x, y: y + 6, size: 13, fill: "#b03030", Self.clipped("Not all drawn: " + note, limit: 64),
                cls: "note")
            y += 17
        }
        return out + "</g>\n"
    }

    // MARK: - Text and numbers

    /// A `<text>`; its font set by the style attribute, so that a page's stylesheet (the
    /// preview's `svg text`) does not override it.
    static func label(
        x: Double, y: Double, size: Double, anchor: String = "start", weight: String = "normal",
        fill: String = "#1d2433", _ content: String, cls: String? = nil
    ) -> String {
        "<text" + (cls.map { " class=\"\($0)\"" } ?? "") + " x=\"\(n(x))\" y=\"\(n(y))\" text-anchor=\"\(anchor)\" "
            + "style=\"font:\(weight) \(n(size))px system-ui,sans-serif;fill:\(fill)\">" + text(content) + "</text>\n"
    }

    /// `x1="…" y1="…" x2="…" y2="…"`.
    static func ends(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> String {
        "x1=\"\(n(a.x))\" y1=\"\(n(a.y))\" x2=\"\(n(b.x))\" y2=\"\(n(b.y))\""
    }

    /// `x,y x,y …` for a polygon's `points`.
    static func points(_ points: [SIMD2<Double>]) -> String {
        points.map { n($0.x) + "," + n($0.y) }.joined(separator: " ")
    }

    /// A coordinate in units (always finite and small here), 2 decimals at most, no exponent.
    static func n(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e9 else { return "0" }
        let hundredths = Int64((value * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let whole = abs(hundredths) / 100, fraction = abs(hundredths) % 100
        if fraction == 0 { return sign + String(whole) }
        let digits = fraction % 10 == 0 ? String(fraction / 10) : (fraction < 10 ? "0" : "") + String(fraction)
        return sign + String(whole) + "." + digits
    }

    /// A measure with 2 decimals and its unit (`11.81 m²`); an exponent past 10^9.
    static func figure(_ value: Double, _ unit: String) -> String {
        guard value.isFinite else { return "—" }
        return (abs(value) < 1e9 ? format(value, 2) : String(value)) + " " + unit
    }

    /// `3.20 m` for an element's title.
    static func metres(_ value: Double) -> String { figure(value, "m") }

    /// A scale bar's length: `5 m`, `50 cm`, `2 km`, or with an exponent beyond.
    static func metresLabel(_ metres: Double) -> String {
        if metres >= 1_000, metres < 1e9 { return n(metres / 1_000) + " km" }
        if metres >= 1 && metres < 1_000 { return n(metres) + " m" }
        if metres >= 0.01 && metres < 1 { return n(metres * 100) + " cm" }
        if metres >= 0.0001 && metres < 0.01 { return n(metres * 1_000) + " mm" }
        return String(metres) + " m"
    }

    /// `text` cut to `limit` characters (an ellipsis marks the cut).
    static func clipped(_ text: String, limit: Int = RoomDrawing.maxText) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    /// Text for XML content or an attribute: the five special characters escaped, and the
    /// characters XML 1.0 does not allow (controls other than tab and newlines, U+FFFE,
    /// U+FFFF) or discourages (the other noncharacters) dropped.
    static func text(_ content: String) -> String {
        var out = ""
        out.reserveCapacity(content.utf8.count)
        for ch in content.unicodeScalars {
            switch ch.value {
            case 0x26: out += "&amp;"
            case 0x3C: out += "&lt;"
            case 0x3E: out += "&gt;"
            case 0x22: out += "&quot;"
            case 0x27: out += "&#39;"
            case 0x9, 0xA, 0xD: out.unicodeScalars.append(ch)
            case 0...0x1F, 0x7F...0x9F, 0xFDD0...0xFDEF: continue
            case let v where v & 0xFFFE == 0xFFFE: continue
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}

extension Double {
    /// 10^power, exact for the powers a scale bar needs, 0 or infinity past the range.
    fileprivate static func pow10(_ power: Int) -> Double {
        var result = 1.0
        for _ in 0..<Swift.min(abs(power), 400) { result *= 10 }
        return power < 0 ? 1 / result : result
    }

    /// The base-10 logarithm, by halving into [1, 10) (no libm, same bits everywhere).
    fileprivate var log10: Double {
        guard self > 0, isFinite else { return 0 }
        var value = self, exponent = 0.0
        while value >= 10 {
            value /= 10
            exponent += 1
        }
        while value < 1 {
            value *= 10
            exponent -= 1
        }
        return exponent
    }
}
