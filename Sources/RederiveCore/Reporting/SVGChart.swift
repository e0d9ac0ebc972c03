import Foundation

/// Inline SVG charts for the HTML reports: plain shapes, CSS classes for colours (`s0`, `s1`...
/// in `HTMLDocument`), a `<title>` per bar so hovering shows the exact numbers without script.
enum SVGChart {
    /// One series of a bar chart.
    struct Series {
        /// Legend text.
        var name: String
        /// One value per category.
        var values: [Double]
    }

    private static let width = 520.0, height = 210.0
    private static let left = 52.0, right = 12.0, top = 26.0, bottom = 38.0

    /// A histogram of one or more series over the same bins, overlaid (semi-transparent when
    /// several), with the bin edges labelled by `edge`.
    static func histogram(
        _ h: ChangeReport.Histogram, names: [String], id: String, caption: String,
        edge: (Double) -> String
    ) -> String {
        let bins = h.binCount
        let peak = max(1, h.series.flatMap { $0 }.max() ?? 0)
        let plotW = width - left - right, plotH = height - top - bottom
        let bw = plotW / Double(max(1, bins))
        var svg = open(id: id, caption: caption)
        svg += axes(peak: Double(peak), plotH: plotH, integer: true)
        for (s, counts) in h.series.enumerated() {
            let cls = "s\(s)" + (h.series.count > 1 ? " overlay" : "")
            for (i, count) in counts.enumerated() where count > 0 {
                let barH = Double(count) / Double(peak) * plotH
                let x = left + Double(i) * bw
                let label = "\(names[s]): \(count) in [\(edge(h.lower(i))), \(edge(h.lower(i + 1))))"
                svg += rect(x: x + 0.5, y: top + plotH - barH, w: max(1, bw - 1), h: barH, cls: cls, title: label)
            }
        }
        // Edge labels: at most ~7, on every k-th edge.
        let step = max(1, Int((Double(bins) / 6).rounded(.up)))
        for i in stride(from: 0, through: bins, by: step) {
            let x = left + Double(i) * bw
            svg += "<line class=\"axis\" x1=\"\(n(x))\" y1=\"\(n(top + plotH))\" "
            svg += "x2=\"\(n(x))\" y2=\"\(n(top + plotH + 4))\"/>"
            svg += text(x: x, y: top + plotH + 16, anchor: "middle", edge(h.lower(i)))
        }
        svg += legend(names.prefix(h.series.count).map { $0 })
        return svg + close(caption: caption)
    }

    /// The HTML reports' `chart-failures`: one bar per code (sorted), one series named `series`.
    static func failureBars(_ countsByCode: [String: Int], series: String, caption: String) -> String {
        let codes = countsByCode.keys.sorted()
        return bars(
            labels: codes, series: [.init(name: series, values: codes.map { Double(countsByCode[$0]!) })],
            id: "chart-failures", caption: caption)
    }

    /// Bars per category (`labels`), the series stacked on each other.
    static func bars(
        labels: [String], series: [Series], id: String, caption: String,
        format: (Double) -> String = { String(Int64($0.rounded())) }
    ) -> String {
        let count = labels.count
        let totals = (0..<count).map { i in series.reduce(0) { $0 + max(0, $1.values[i]) } }
        let peak = max(totals.max() ?? 0, 1e-9)
        let plotW = width - left - right, plotH = height - top - bottom
        let bw = plotW / Double(max(1, count))
        var svg = open(id: id, caption: caption)
        svg += axes(
            peak: peak, plotH: plotH, integer: series.allSatisfy { $0.values.allSatisfy { $0 == $0.rounded() } },
            format: format)
        for i in 0..<count {
            var y = top + plotH
            for (s, serie) in series.enumerated() where serie.values[i] > 0 {
                let barH = serie.values[i] / peak * plotH
                y -= barH
                svg += rect(
                    x: left + Double(i) * bw + bw * 0.12, y: y, w: max(1, bw * 0.76), h: barH, cls: "s\(s)",
                    title: "\(labels[i]): \(serie.name) \(format(serie.values[i]))")
            }
        }
        let step = max(1, Int((Double(count) / 10).rounded(.up)))
        for i in stride(from: 0, to: count, by: step) {
            // Labels as wide as their slot (about 6.5 px a character), so neighbours never overlap.
            let room = max(3, Int(bw * Double(step) / 6.5))
            svg += text(x: left + (Double(i) + 0.5) * bw, y: top + plotH + 14, anchor: "middle", short(labels[i], room))
        }
        if series.count > 1 { svg += legend(series.map(\.name)) }
        return svg + close(caption: caption)
    }

    /// One line of a line chart: a value per point, nil where there is none (a gap).
    struct Line {
        /// Legend text.
        var name: String
        /// One value per point.
        var values: [Double?]
    }

    /// A horizontal line across a line chart (a limit), drawn dashed with CSS class `cls`.
    struct Level {
        /// Legend text ("yellow 32.0 MB").
        var name: String
        /// Where it is.
        var value: Double
        /// `limit-yellow` or `limit-red`.
        var cls: String
    }

    /// Lines over the points `labels` (a dot per value, with its number on hover), and the
    /// `levels` as dashed lines across; the scale reaches the highest value or level.
    static func lines(
        labels: [String], lines: [Line], levels: [Level], id: String, caption: String,
        format: (Double) -> String
    ) -> String {
        let count = labels.count
        let peak = max(
            (lines.flatMap { $0.values.compactMap { $0 } } + levels.map(\.value)).filter(\.isFinite).max() ?? 0, 1e-9)
        let plotW = width - left - right, plotH = height - top - bottom
        let step = plotW / Double(max(1, count))
        func y(_ value: Double) -> Double { top + plotH - min(max(value, 0), peak) / peak * plotH }
        var svg = open(id: id, caption: caption)
        svg += axes(peak: peak, plotH: plotH, integer: false, format: format)
        for level in levels where level.value.isFinite {
            svg +=
                "<line class=\"\(level.cls)\" x1=\"\(n(left))\" y1=\"\(n(y(level.value)))\" x2=\"\(n(width - right))\" "
                + "y2=\"\(n(y(level.value)))\"><title>\(HTMLDocument.escape(level.name))</title></line>"
        }
        var dots = ""  // drawn over every line
        for (s, line) in lines.enumerated() {
            var points: [String] = []
            func flush() {
                if points.count > 1 {
                    svg += "<polyline class=\"line\(s)\" points=\"\(points.joined(separator: " "))\"/>"
                }
                points = []
            }
            for (i, value) in line.values.enumerated() {
                guard let value, value.isFinite, i < count else {
                    flush()
                    continue
                }
                let x = left + (Double(i) + 0.5) * step
                points.append("\(n(x)),\(n(y(value)))")
                dots +=
                    "<circle class=\"s\(s)\" cx=\"\(n(x))\" cy=\"\(n(y(value)))\" r=\"2\"><title>"
                    + HTMLDocument.escape("\(labels[i]): \(line.name) \(format(value))") + "</title></circle>"
            }
            flush()
        }
        svg += dots
        let every = max(1, Int((Double(count) / 10).rounded(.up)))
        for i in stride(from: 0, to: count, by: every) {
            svg += text(x: left + (Double(i) + 0.5) * step, y: top + plotH + 14, anchor: "middle", short(labels[i], 8))
        }
        svg += legend(
            lines.map(\.name) + levels.map(\.name), classes: lines.indices.map { "s\($0)" } + levels.map(\.cls))
        return svg + close(caption: caption)
    }

    private static func open(id: String, caption: String) -> String {
        "<figure>\n<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"\(HTMLDocument.escape(id))\" width=\"\(n(width))\" "
            + "height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" role=\"img\">"
            + "<title>\(HTMLDocument.escape(caption))</title>"
    }

    private static func close(caption: String) -> String {
        "</svg>\n<figcaption>\(HTMLDocument.escape(caption))</figcaption>\n</figure>\n"
    }

    private static func axes(
        peak: Double, plotH: Double, integer: Bool,
        format: (Double) -> String = { String(Int64($0.rounded())) }
    ) -> String {
        var out = ""
        let fractions = [0.0, 0.5, 1.0]
        var labels = fractions.map { integer ? String(Int64(($0 * peak).rounded())) : format($0 * peak) }
        // Rounded alike (0.0, 0.1, 0.1 for a peak of 0.13): as many more decimals as make them distinct.
        for decimals in 1...6 where !integer && Set(labels).count < labels.count {
            labels = fractions.map { RederiveCore.format($0 * peak, decimals) }
        }
        for (f, label) in zip(fractions, labels) {
            let y = top + plotH - f * plotH
            out += "<line class=\"grid\" x1=\"\(n(left))\" y1=\"\(n(y))\" x2=\"\(n(width - right))\" y2=\"\(n(y))\"/>"
            let value = peak * f
            if f == 0.5 && integer && value != value.rounded() { continue }
            out += text(x: left - 6, y: y + 4, anchor: "end", label)
        }
        out +=
            "<line class=\"axis\" x1=\"\(n(left))\" y1=\"\(n(top + plotH))\" x2=\"\(n(width - right))\" "
            + "y2=\"\(n(top + plotH))\"/>"
        return out
    }

    private static func legend(_ names: [String], classes: [String]? = nil) -> String {
        var out = "", x = left
        for (s, name) in names.enumerated() {
            let cls = classes.map { $0[s] } ?? "s\(s)"
            if cls.hasPrefix("limit") {
                out += "<line class=\"\(cls)\" x1=\"\(n(x))\" y1=\"13\" x2=\"\(n(x + 10))\" y2=\"13\"/>"
            } else {
                out += "<rect class=\"\(cls)\" x=\"\(n(x))\" y=\"8\" width=\"10\" height=\"10\"/>"
            }
            out += text(x: x + 14, y: 17, anchor: "start", name)
            x += 24 + Double(name.count) * 6.5
        }
        return out
    }

    private static func rect(x: Double, y: Double, w: Double, h: Double, cls: String, title: String) -> String {
        "<rect class=\"\(cls)\" x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(w))\" height=\"\(n(h))\">"
            + "<title>\(HTMLDocument.escape(title))</title></rect>"
    }

    private static func text(x: Double, y: Double, anchor: String, _ content: String) -> String {
        "<text x=\"\(n(x))\" y=\"\(n(y))\" text-anchor=\"\(anchor)\">\(HTMLDocument.escape(content))</text>"
    }

    private static func short(_ label: String, _ limit: Int) -> String {
        label.count <= limit ? label : String(label.prefix(limit - 1)) + "…"
    }

    /// A coordinate with at most 1 decimal.
    private static func n(_ value: Double) -> String {
        let r = (value * 10).rounded() / 10
        return r == r.rounded() ? String(Int64(r)) : String(r)
    }
}
