/// Writing a plan out as SVG.
extension RoomDrawingPlan {

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
        // A segment in the plan's frame (walls, openings, closures), or a skip when an end is out of range.
        func segment(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ cls: String, _ style: String, _ title: String) {
            guard let a = frame.map(a), let b = frame.map(b) else { return skipped += 1 }
            body +=
                "<line class=\"\(cls)\" " + Self.ends(a, b) + " " + style + "><title>" + Self.text(title)
                + "</title></line>\n"
        }
        for wall in walls {
            let colour = wall.cls == "wall" ? "#2b2f36" : "#d1342f"
            segment(
                wall.a, wall.b, wall.cls,
                "stroke=\"\(colour)\" stroke-width=\"\(Self.n(wallWidth))\" stroke-linecap=\"square\"", wall.title)
        }
        for opening in openings {
            let colour =
                opening.cls.hasSuffix("door") ? "#e07b24" : opening.cls.hasSuffix("window") ? "#3b9bd9" : "#52b365"
            segment(
                opening.a, opening.b, opening.cls,
                "stroke=\"\(colour)\" stroke-width=\"\(Self.n(wallWidth + (full ? 2 : 1)))\"", opening.title)
        }
        // The outline's gap closures, dashed over the walls' ends: what the floor area assumed.
        for closure in closures {
            segment(
                closure.a, closure.b, "closure", "stroke=\"#3b78c4\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"",
                closure.title)
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
    func placeLabels(
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
    func scaleBar(frame: RoomDrawing.Frame, x: Double, y: Double, full: Bool) -> String {
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
    func figures(x: Double, y: inout Double, width: Double) -> String {
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
