import Foundation

extension ChangeReport {
    /// The id of the SVG chart of `field` (`values`, `delta`, `relative`, `transitions`), so
    /// tests and links can find it.
    public static func chartID(_ field: String, _ chart: String) -> String { "chart-\(field)-\(chart)" }

    /// The report as a self-contained HTML page (`preview.html`): the Markdown's content,
    /// with, per changed field, before/after histograms overlaid, histograms of the change
    /// and of the relative change (bins from the data), and a chart of the transitions;
    /// breakdowns and failures charted too. Inline CSS and SVG, no script, XHTML-compatible.
    public func html() -> String {
        var doc = HTMLDocument()
        let esc = HTMLDocument.escape
        doc.element("h1", "Derive dry run")
        doc.raw(
            "<p class=\"meta\">Nothing was written: this is what <code>rederive derive</code> would do"
                + (store.map { " to " + HTMLDocument.code($0) } ?? "") + ".</p>\n")
        doc.raw(
            "<p class=\"meta\">selection " + esc(selection ?? "stale") + " · writes summary v\(summaryVersion)"
                + (fingerprint.map { " (fingerprint " + HTMLDocument.code($0) + ")" } ?? "")
                + " · values compared at the summary JSON level (2 decimals) · every changed record in "
                + HTMLDocument.code(FileName.changes) + "</p>\n")

        doc.raw("<div class=\"cards\">\n")
        for (label, value, cls) in [
            ("examined", examined, ""), ("would change", wouldChange, wouldChange > 0 ? "warn" : ""),
            ("version/fingerprint only", versionOnly, ""), ("up to date", upToDate, ""),
            ("never derived", neverDerived, ""), ("would fail", wouldFail, wouldFail > 0 ? "bad" : ""),
            ("would be written", wouldWrite, ""),
        ] {
            doc.raw("<div class=\"card \(cls)\"><b>\(value)</b><span>\(esc(label))</span></div>\n")
        }
        doc.raw("</div>\n")

        doc.element("h2", "Summary versions")
        let stored = byStoredVersion.map { "\($0.value): \($0.examined)" }.joined(separator: ", ")
        doc.element("p", "Stored: \(stored.isEmpty ? "none" : stored); this build writes v\(summaryVersion).")
        if !versionNotes.isEmpty {
            doc.raw(
                "<ul>\n"
                    + versionNotes.map { "<li><b>v\($0.version)</b>: " + esc($0.note ?? "(no note)") + "</li>" }
                    .joined(separator: "\n") + "\n</ul>\n")
        }

        doc.element("h2", "Fields")
        doc.table(
            header: ["field", "kind", "changed", "min Δ", "median Δ", "max Δ", "median Δ %", "from 0"],
            rows: fields.map { f in
                let name =
                    f.changed > 0
                    ? "<a href=\"#field-\(esc(f.key))\">" + HTMLDocument.code(f.key) + "</a>"
                    : HTMLDocument.code(f.key)
                return [
                    name, f.kind.rawValue,
                    f.changed > 0 ? String(f.changed) : "<span class=\"unchanged\">unchanged</span>",
                    Self.signed(f.minDelta), Self.signed(f.medianDelta), Self.signed(f.maxDelta),
                    Self.percent(f.relative?.median),
                    (f.kind == .float || f.kind == .count) && f.changed > 0 ? String(f.fromZero) : "",
                ]
            }, numeric: [2, 3, 4, 5, 6, 7])

        for f in changedFields { fieldSection(f, into: &doc) }

        doc.element("h2", "Breakdowns")
        breakdown("By stored floor-area method", id: "method", byFloorAreaMethod, into: &doc)
        breakdown("By record format version", id: "format", byFormatVersion, into: &doc)
        breakdown("By stored summary version", id: "version", byStoredVersion, into: &doc)
        breakdown("By source file", id: "file", bySourceFile, into: &doc)

        if neverDerived > 0 {
            doc.element("h2", "New records (never derived)")
            doc.element("p", "\(neverDerived) records have no summary yet; a derive writes one.")
            let methods = newRecordsByMethod.keys.sorted()
            doc.table(
                header: ["floor-area method", "records"],
                rows: methods.map { [esc($0), String(newRecordsByMethod[$0]!)] }, numeric: [1])
            doc.table(
                header: ["id", "room", "method"],
                rows: newRecords.map { [HTMLDocument.code($0.id), esc($0.roomName ?? ""), esc($0.method)] })
            if newRecords.count < neverDerived {
                doc.element("p", "First \(newRecords.count) of \(neverDerived) by id.")
            }
        }
        if wouldFail > 0 {
            doc.element("h2", "Would fail")
            let codes = failuresByCode.keys.sorted()
            doc.raw(
                SVGChart.failureBars(failuresByCode, series: "records", caption: "Records that would fail, by code"))
            doc.table(
                header: ["code", "records"], rows: codes.map { [HTMLDocument.code($0), String(failuresByCode[$0]!)] },
                numeric: [1])
            doc.table(
                header: ["id", "room", "stage", "code", "message"],
                rows: failures.map {
                    [
                        HTMLDocument.code($0.id), esc($0.roomName ?? ""), esc($0.stage), HTMLDocument.code($0.code),
                        esc($0.message),
                    ]
                })
            if failures.count < wouldFail { doc.element("p", "First \(failures.count) of \(wouldFail) by id.") }
        }
        return doc.page(title: "Derive dry run" + (store.map { ": " + $0 } ?? ""))
    }

    private func fieldSection(_ f: FieldChange, into doc: inout HTMLDocument) {
        let esc = HTMLDocument.escape
        let unit = f.unit.map { " (\($0))" } ?? ""
        doc.raw(
            "<h2 id=\"field-\(esc(f.key))\">" + HTMLDocument.code(f.key) + esc(unit + ": \(f.changed) records change")
                + "</h2>\n")
        if f.kind == .structured {
            doc.element("p", "Changed in \(f.changed) records (a structured value: see \(FileName.changes)).")
            return
        }
        if f.delta != nil {
            let rows: [(String, Distribution?, (Double?) -> String)] = [
                ("Δ", f.delta, Self.signed), ("Δ %", f.relative, Self.percent), ("before", f.before, Self.plain),
                ("after", f.after, Self.plain),
            ]
            doc.table(
                header: ["", "records", "min", "q1", "median", "q3", "max"],
                rows: rows.compactMap { label, d, text in
                    d.map {
                        [
                            esc(label), String($0.count), text($0.min), text($0.q1), text($0.median), text($0.q3),
                            text($0.max),
                        ]
                    }
                }, numeric: [1, 2, 3, 4, 5, 6])
            if f.fromZero > 0 { doc.element("p", "\(f.fromZero) change from 0 (no relative change).") }
        }
        doc.raw("<div class=\"charts\">\n")
        let edge: (Double) -> String = { Self.plainEdge($0) }
        if let h = f.valueHistogram {
            doc.raw(
                SVGChart.histogram(
                    h, names: ["before", "after"], id: Self.chartID(f.key, "values"),
                    caption: "\(f.key): before and after\(unit), bin width \(edge(h.width))", edge: edge))
        }
        if let h = f.deltaHistogram {
            doc.raw(
                SVGChart.histogram(
                    h, names: ["Δ"], id: Self.chartID(f.key, "delta"),
                    caption: "\(f.key): change Δ = after − before, bin width \(edge(h.width))", edge: edge))
        }
        if let h = f.relativeHistogram {
            let pct: (Double) -> String = { Self.plainEdge($0 * 100) + "%" }
            doc.raw(
                SVGChart.histogram(
                    h, names: ["Δ %"], id: Self.chartID(f.key, "relative"),
                    caption: "\(f.key): relative change, bin width \(pct(h.width))", edge: pct))
        }
        if !f.transitions.isEmpty {
            let shown = f.transitions.prefix(20)
            doc.raw(
                SVGChart.bars(
                    labels: shown.map { "\($0.before) → \($0.after)" },
                    series: [.init(name: "records", values: shown.map { Double($0.count) })],
                    id: Self.chartID(f.key, "transitions"), caption: "\(f.key): before → after"))
        }
        doc.raw("</div>\n")
        if !f.transitions.isEmpty {
            doc.table(
                header: ["before → after", "records"],
                rows: f.transitions.map { [esc($0.before) + " → " + esc($0.after), String($0.count)] }, numeric: [1])
        }
        roomThumbnails(f, into: &doc)
        for (title, list) in [("Largest by |Δ|", f.largestAbsolute), ("Largest by |Δ %|", f.largestRelative)]
        where !list.isEmpty {
            doc.element("h3", title + ", ties by id")
            doc.table(
                header: ["#", "id", "room", "before", "after", "Δ", "Δ %"],
                rows: list.enumerated().map { i, c in
                    [
                        String(i + 1), HTMLDocument.code(c.id), esc(c.roomName ?? ""), Self.plain(c.before),
                        Self.plain(c.after),
                        Self.signed(c.delta), Self.percent(c.relative),
                    ]
                }, numeric: [0, 3, 4, 5, 6])
        }
    }

    /// The rooms with the field's largest changes, drawn (`RoomDrawing`), with id, room name
    /// and before → after under each; the SVG is inline, nothing is fetched.
    private func roomThumbnails(_ f: FieldChange, into doc: inout HTMLDocument) {
        guard !f.thumbnails.isEmpty else { return }
        let esc = HTMLDocument.escape
        let unit = f.unit.map { " " + $0 } ?? ""
        doc.raw("<h3 id=\"rooms-\(esc(f.key))\">" + esc("Rooms with the largest |Δ|, drawn") + "</h3>\n")
        doc.raw("<div class=\"charts rooms\">\n")
        for t in f.thumbnails {
            doc.raw(
                "<figure class=\"room-thumbnail\">\n" + t.svg + "<figcaption>" + HTMLDocument.code(t.id) + "<br/>"
                    + esc(t.roomName ?? "") + "<br/>" + esc(Self.plain(t.before) + " → " + Self.plain(t.after) + unit)
                    + " (" + esc(Self.signed(t.delta)) + ")</figcaption>\n</figure>\n")
        }
        doc.raw("</div>\n")
    }

    private func breakdown(_ title: String, id: String, _ rows: [BreakdownRow], into doc: inout HTMLDocument) {
        guard !rows.isEmpty else { return }
        let esc = HTMLDocument.escape
        doc.element("h3", title)
        let shown = Self.limitedBreakdown(rows)
        doc.raw(
            SVGChart.bars(
                labels: shown.map(\.value),
                series: [
                    .init(name: "would change", values: shown.map { Double($0.changed) }),
                    .init(name: "unchanged", values: shown.map { Double($0.unchanged) }),
                    .init(name: "would fail", values: shown.map { Double($0.wouldFail) }),
                    .init(name: "never derived", values: shown.map { Double($0.neverDerived) }),
                ], id: "chart-breakdown-\(id)", caption: title))
        doc.table(
            header: [
                "group", "examined", "would change", "unchanged", "never derived", "would fail", "fields changed",
            ],
            rows: shown.map { r in
                let fields = r.fieldsChanged.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
                    .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                return [
                    esc(r.value), String(r.examined), String(r.changed), String(r.unchanged), String(r.neverDerived),
                    String(r.wouldFail), esc(fields),
                ]
            }, numeric: [1, 2, 3, 4, 5])
        if shown.count < rows.count {
            doc.element("p", "The \(shown.count) groups with the most changes of \(rows.count).")
        }
    }

    static func plainEdge(_ value: Double) -> String { number(value) }

    static func plain(_ value: Double?) -> String { value.map { format($0, 2) } ?? "—" }

    static func signed(_ value: Double?) -> String {
        guard let value else { return "" }
        return (value > 0 ? "+" : "") + format(value, 2)
    }

    /// A fraction as a signed percentage with 2 decimals (`0.0525` → `+5.25 %`).
    static func percent(_ value: Double?) -> String {
        guard let value else { return "" }
        return (value > 0 ? "+" : "") + format(value * 100, 2) + " %"
    }
}
