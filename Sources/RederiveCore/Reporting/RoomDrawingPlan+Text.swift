/// Text and numbers as SVG writes them.
extension RoomDrawingPlan {

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

    /// `text` cut to `limit` Unicode scalars, an ellipsis the last of them (`PreviewText`):
    /// by scalars, not characters, so a letter followed by 100,000 combining marks (one
    /// character) is cut too, and what is kept is at most 4 × `limit` bytes.
    static func clipped(_ text: String, limit: Int = RoomDrawing.maxText) -> String {
        PreviewText.exceeds(text, scalars: limit) ? PreviewText.truncated(text, limit: limit - 1) : text
    }

    /// Text for XML content or an attribute (`MarkupText.escaped`, as the HTML reports write
    /// it): markup escaped, control characters replaced, bidi controls and noncharacters dropped.
    static func text(_ content: String) -> String { MarkupText.escaped(content) }
}
