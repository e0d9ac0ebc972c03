import Foundation

extension ChangeReport {
    /// Largest changes per list shown in the Markdown (`preview.json` has `topCount`).
    static let markdownTopCount = 10
    /// Groups per breakdown shown in the Markdown and the HTML, most changed first beyond it.
    static let breakdownRowLimit = 50

    /// The report as Markdown (`preview.md`): headline numbers, version notes, one table of
    /// every field, then per changed field its distributions (change, relative change, before,
    /// after), a text histogram of the change, transitions and the largest changes; then the
    /// breakdowns, new records and failures.
    public func markdown() -> String {
        var md = "# Derive dry run\n\n"
        md += "Nothing was written: this is what `rederive derive` would do"
        if let store { md += " to \(Self.code(store))" }
        md += ".\n\n"
        md += "- selection: \(selection ?? "stale")\n"
        md += "- summary version: \(summaryVersion)" + (fingerprint.map { " (fingerprint `\($0)`)" } ?? "") + "\n"
        md += "- values compared at the summary JSON level (numbers rounded to 2 decimals)\n"
        md += "- every changed record, before and after: `\(FileName.changes)`; charts: `\(FileName.html)`\n\n"

        md += "## Totals\n\n| records | count |\n| --- | ---: |\n"
        md += "| examined | \(examined) |\n"
        md += "| would change (some value differs) | \(wouldChange) |\n"
        md += "| unchanged values, rewritten for version/fingerprint only | \(versionOnly) |\n"
        md += "| unchanged, already up to date | \(upToDate) |\n"
        md += "| never derived before | \(neverDerived) |\n"
        md += "| would fail | \(wouldFail) |\n"
        md += "| **would be written** | **\(wouldWrite)** |\n"
        if storedUnreadable > 0 { md += "| of which stored summary unreadable | \(storedUnreadable) |\n" }
        md += "\n"

        md += versionSection()
        md += "## Fields\n\n"
        md += "Δ is after − before over the records that would change that field; Δ % is Δ / |before| "
        md += "(records with before = 0 have none: see \"from 0\").\n\n"
        md += "| field | kind | changed | min Δ | median Δ | max Δ | median Δ % | from 0 |\n"
        md += "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        for f in fields {
            let numeric = f.kind == .float || f.kind == .count
            md += "| `\(f.key)` | \(f.kind.rawValue) | \(f.changed == 0 ? "unchanged" : String(f.changed)) | "
            md += "\(Self.signed(f.minDelta)) | \(Self.signed(f.medianDelta)) | \(Self.signed(f.maxDelta)) | "
            md += "\(Self.percent(f.relative?.median)) | \(numeric && f.changed > 0 ? String(f.fromZero) : "") |\n"
        }
        let unchangedKeys = fields.filter { $0.changed == 0 }.map { "`\($0.key)`" }
        md +=
            "\n"
            + (unchangedKeys.isEmpty
                ? "Every field changes somewhere."
                : "Unchanged: " + unchangedKeys.joined(separator: ", ") + ".") + "\n\n"

        for f in changedFields { md += fieldSection(f) }

        md += "## Breakdowns\n\n"
        md += "Where the changes are: examined records per group, and how many would change each field.\n\n"
        md += breakdownTable("By stored floor-area method", column: "method", byFloorAreaMethod)
        md += breakdownTable("By record format version", column: "format", byFormatVersion)
        md += breakdownTable("By stored summary version", column: "version", byStoredVersion)
        md += breakdownTable("By source file", column: "file", bySourceFile)

        if neverDerived > 0 {
            md += "## New records (never derived)\n\n"
            md += "\(neverDerived) records have no summary yet; a derive writes one.\n\n"
            md += "| floor-area method | records |\n| --- | ---: |\n"
            for method in newRecordsByMethod.keys.sorted() {
                md += "| \(Self.cell(method)) | \(newRecordsByMethod[method]!) |\n"
            }
            md += "\n| id | room | method |\n| --- | --- | --- |\n"
            for n in newRecords {
                md += "| \(Self.code(n.id)) | \(Self.cell(n.roomName ?? "")) | \(Self.cell(n.method)) |\n"
            }
            if newRecords.count < neverDerived { md += "\n(first \(newRecords.count) of \(neverDerived) by id)\n" }
            md += "\n"
        }

        if wouldFail > 0 {
            md += "## Would fail\n\n| code | records |\n| --- | ---: |\n"
            for code in failuresByCode.keys.sorted() { md += "| \(Self.code(code)) | \(failuresByCode[code]!) |\n" }
            md += "\n| id | room | stage | code | message |\n| --- | --- | --- | --- | --- |\n"
            for f in failures {
                md += "| \(Self.code(f.id)) | \(Self.cell(f.roomName ?? "")) | \(Self.cell(f.stage)) | "
                md += "\(Self.code(f.code)) | \(Self.cell(f.message)) |\n"
            }
            if failures.count < wouldFail { md += "\n(first \(failures.count) of \(wouldFail) by id)\n" }
            md += "\n"
        }
        return md
    }

    /// The stored versions and the notes of the versions a derive would move them through.
    private func versionSection() -> String {
        var md = "## Summary versions\n\n"
        let stored = byStoredVersion.map { "\($0.value): \($0.examined)" }.joined(separator: ", ")
        md += "Stored: \(stored.isEmpty ? "none" : stored); this build writes v\(summaryVersion).\n\n"
        if !versionNotes.isEmpty {
            for n in versionNotes { md += "- v\(n.version): \(n.note ?? "(no note)")\n" }
            md += "\n"
        }
        return md
    }

    private func fieldSection(_ f: FieldChange) -> String {
        var md = "## `\(f.key)`" + (f.unit.map { " (\($0))" } ?? "") + ": \(f.changed) records change\n\n"
        if f.kind == .structured {
            md += "Changed in \(f.changed) records (structured value: see `\(FileName.changes)`).\n\n"
            return md
        }
        if f.delta != nil {
            md += "| | records | min | q1 | median | q3 | max |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
            md += distributionRow("Δ", f.delta, Self.signed)
            md += distributionRow("Δ %", f.relative, Self.percent)
            md += distributionRow("before", f.before, Self.plain)
            md += distributionRow("after", f.after, Self.plain)
            if f.fromZero > 0 { md += "\n\(f.fromZero) change from 0 (no Δ %).\n" }
            md += "\n"
        }
        if let h = f.deltaHistogram {
            md += "Δ histogram (bin width \(Self.plain(h.width))):\n\n```\n" + barChart(h) + "```\n\n"
        }
        if !f.transitions.isEmpty {
            md += "| before → after | records |\n| --- | ---: |\n"
            for t in f.transitions { md += "| \(Self.cell(t.before)) → \(Self.cell(t.after)) | \(t.count) |\n" }
            md += "\n"
        }
        md += changesTable("Largest by |Δ|", f.largestAbsolute, of: f.changed)
        md += changesTable("Largest by |Δ %|", f.largestRelative, of: f.changed)
        return md
    }

    private func distributionRow(_ label: String, _ d: Distribution?, _ text: (Double?) -> String) -> String {
        guard let d else { return "" }
        return "| \(label) | \(d.count) | \(text(d.min)) | \(text(d.q1)) | \(text(d.median)) | \(text(d.q3)) | "
            + "\(text(d.max)) |\n"
    }

    private func changesTable(_ title: String, _ list: [ValueChange], of total: Int) -> String {
        guard !list.isEmpty else { return "" }
        let shown = list.prefix(Self.markdownTopCount)
        var md = "\(title), ties by id" + (shown.count < total ? " (first \(shown.count))" : "") + ":\n\n"
        md += "| # | id | room | before | after | Δ | Δ % |\n| ---: | --- | --- | ---: | ---: | ---: | ---: |\n"
        for (i, c) in shown.enumerated() {
            md += "| \(i + 1) | \(Self.code(c.id)) | \(Self.cell(c.roomName ?? "")) | "
            md += "\(Self.plain(c.before)) | \(Self.plain(c.after)) | "
            md += "\(Self.signed(c.delta)) | \(Self.percent(c.relative)) |\n"
        }
        return md + "\n"
    }

    private func breakdownTable(_ title: String, column: String, _ rows: [BreakdownRow]) -> String {
        guard !rows.isEmpty else { return "" }
        var md = "### \(title)\n\n"
        md += "| \(column) | examined | would change | unchanged | never derived | would fail | fields changed |\n"
        md += "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n"
        let shown = Self.limitedBreakdown(rows)
        for r in shown {
            let changedFields = r.fieldsChanged.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
                .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            md += "| \(Self.cell(r.value)) | \(r.examined) | \(r.changed) | \(r.unchanged) | \(r.neverDerived) | "
            md += "\(r.wouldFail) | \(changedFields) |\n"
        }
        if shown.count < rows.count { md += "\n(the \(shown.count) groups with the most changes of \(rows.count))\n" }
        return md + "\n"
    }

    /// At most `breakdownRowLimit` groups: all when few, else those with the most changes (then
    /// most examined), kept in their order.
    static func limitedBreakdown(_ rows: [BreakdownRow]) -> [BreakdownRow] {
        guard rows.count > breakdownRowLimit else { return rows }
        let kept = Set(
            rows.sorted { ($0.changed, $0.examined, $1.value) > ($1.changed, $1.examined, $0.value) }
                .prefix(breakdownRowLimit).map(\.value))
        return rows.filter { kept.contains($0.value) }
    }

    /// One line per bin from the first to the last non-empty one: range, a bar scaled to the
    /// largest bin, the count.
    func barChart(_ h: Histogram, series: Int = 0, width: Int = 40) -> String {
        let counts = h.series[series]
        guard let first = counts.firstIndex(where: { $0 > 0 }), let last = counts.lastIndex(where: { $0 > 0 }) else {
            return ""
        }
        let peak = counts.max() ?? 0
        let labels = (first...last).map { "\(Self.number(h.lower($0))) to \(Self.number(h.lower($0 + 1)))" }
        let labelWidth = labels.map(\.count).max() ?? 0
        var out = ""
        for (label, i) in zip(labels, first...last) {
            // At least one mark so a bin of 1 among thousands still shows.
            let count = counts[i]
            let length = count == 0 ? 0 : max(1, Int((Double(count) / Double(peak) * Double(width)).rounded()))
            let pad = String(repeating: " ", count: labelWidth - label.count)
            out += pad + label + " | " + String(repeating: "#", count: length) + " \(count)\n"
        }
        return out
    }

    /// A bin edge: shortest text, at most 4 decimals (relative edges are fractions).
    static func number(_ value: Double) -> String {
        let r = (value * 10_000).rounded() / 10_000
        if r == r.rounded(), abs(r) < 1e15 { return String(Int64(r)) }
        return String(r)
    }

    /// Text from the data (room names, file names, stored values, messages) as Markdown
    /// that shows exactly that text and nothing else, in a table cell or a line: HTML's
    /// `<`, `>` and `&` as entities (no inline HTML reaches a viewer); the characters that
    /// open links, images, emphasis, code and strike-through (`[`, `]`, `*`, `_`, `` ` ``,
    /// `~`), the backslash and the pipe (which would end the cell) backslash-escaped; line
    /// breaks (CR and LF end a row in CommonMark; U+2028, U+2029) and every other control
    /// character written as `\u000D` (`TerminalText`), so `cat preview.md` cannot drive a
    /// terminal either (the bidi controls too); noncharacters dropped (`MarkupText`). An `_`
    /// between letters or digits opens nothing in CommonMark and stays as is, so
    /// `floor_polygon` reads as written.
    static func cell(_ text: String) -> String {
        func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || scalar.properties.numericType != nil
        }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var previous: Unicode.Scalar?
        var pendingUnderscore = false  // an `_` after a word character: the next one decides
        for scalar in text.unicodeScalars {
            if pendingUnderscore {
                out += isWordCharacter(scalar) ? "_" : "\\_"
                pendingUnderscore = false
            }
            switch scalar {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "_" where previous.map(isWordCharacter) == true: pendingUnderscore = true
            case "\\", "`", "*", "_", "[", "]", "|", "~":
                out += "\\"
                out.unicodeScalars.append(scalar)
            case _ where MarkupText.isNoncharacter(scalar): continue
            default:
                if TerminalText.needsEscape(scalar) {
                    out += TerminalText.escaped(String(scalar))
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
            previous = scalar
        }
        if pendingUnderscore { out += "\\_" }
        return out
    }

    /// An id or code as a code span when it is a plain token (letters, digits, `-`, `_`,
    /// `.`, `:`, `/`), as every generated one is; anything else as an escaped `cell`, since
    /// backslash escapes do not work inside a code span.
    static func code(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.:/".unicodeScalars.contains($0))
            }
        return plain ? "`\(text)`" : cell(text)
    }
}
