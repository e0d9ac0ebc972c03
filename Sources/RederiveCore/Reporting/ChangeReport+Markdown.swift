import Foundation

extension ChangeReport {
    /// The report as Markdown (`preview.md`): headline numbers, per-field table, categorical
    /// transitions, a text bar chart of the floor-area deltas, the largest changes, failures.
    public func markdown() -> String {
        var md = "# Derive dry run\n\n"
        md += "Nothing was written: this is what `rederive derive` would do"
        if let store { md += " to `\(store)`" }
        md += ".\n\n"
        md += "- selection: \(selection ?? "stale")\n"
        md += "- summary version: \(summaryVersion)" + (fingerprint.map { " (fingerprint `\($0)`)" } ?? "") + "\n"
        md += "- values compared at the summary JSON level (numbers rounded to 2 decimals)\n\n"

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

        md += "## Fields\n\n"
        md += "Δ is after − before over the records that would change that field.\n\n"
        md += "| field | kind | changed | min Δ | median Δ | max Δ | from 0 |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n"
        for f in fields {
            let numeric = f.kind == .numeric
            md += "| `\(f.key)` | \(f.kind.rawValue) | \(f.changed) | \(signed(f.minDelta)) | \(signed(f.medianDelta)) | "
            md += "\(signed(f.maxDelta)) | \(numeric ? String(f.fromZero) : "") |\n"
        }
        md += "\n"

        let categorical = fields.filter { $0.kind == .categorical }
        if categorical.contains(where: { !$0.transitions.isEmpty }) {
            md += "## Transitions\n\n"
            for f in categorical where !f.transitions.isEmpty {
                md += "### `\(f.key)`\n\n| before → after | records |\n| --- | ---: |\n"
                for t in f.transitions { md += "| \(cell(t.before)) → \(cell(t.after)) | \(t.count) |\n" }
                md += "\n"
            }
        }

        if let area = field("estimated_floor_area_sqm"), !area.histogram.isEmpty {
            md += "## Floor area change (Δ m², after − before)\n\n"
            if area.histogram.allSatisfy({ $0.count == 0 }) {
                md += "No floor area would change.\n\n"
            } else {
                md += "```\n" + barChart(area.histogram) + "```\n\n"
            }
        }

        md += "## Largest changes\n\n"
        if largestChanges.isEmpty {
            md += "No record would change.\n\n"
        } else {
            md += "By |Δ estimated_floor_area_sqm|, ties by id"
            if largestChanges.count < wouldChange { md += ": the first \(largestChanges.count) of \(wouldChange)" }
            md += ".\n\n"
            md += "| # | id | room | area before | area after | Δ area | method before → after | fields changed |\n"
            md += "| ---: | --- | --- | ---: | ---: | ---: | --- | --- |\n"
            for (i, c) in largestChanges.enumerated() {
                md += "| \(i + 1) | `\(c.id)` | \(cell(c.roomName ?? "")) | \(plain(c.floorAreaBefore)) | \(plain(c.floorAreaAfter)) | "
                md += "\(signed(c.floorAreaDelta)) | \(cell(c.methodBefore ?? "(missing)")) → \(cell(c.methodAfter ?? "(missing)")) | "
                md += c.changedFields.joined(separator: ", ") + " |\n"
            }
            md += "\n"
        }

        if wouldFail > 0 {
            md += "## Would fail\n\n| code | records |\n| --- | ---: |\n"
            for code in failuresByCode.keys.sorted() { md += "| `\(code)` | \(failuresByCode[code]!) |\n" }
            md += "\n| id | room | stage | code | message |\n| --- | --- | --- | --- | --- |\n"
            for f in failures {
                md += "| `\(f.id)` | \(cell(f.roomName ?? "")) | \(f.stage) | `\(f.code)` | \(cell(f.message)) |\n"
            }
            if failures.count < wouldFail { md += "\n(first \(failures.count) of \(wouldFail) by id)\n" }
            md += "\n"
        }
        return md
    }

    /// One line per non-empty bucket: label, a bar scaled to the largest bucket, the count.
    func barChart(_ buckets: [Bucket], width: Int = 40) -> String {
        let shown = buckets.filter { $0.count > 0 }
        let peak = shown.map(\.count).max() ?? 0
        let labelWidth = shown.map(\.label.count).max() ?? 0
        var out = ""
        for b in shown {
            // At least one mark so a bucket of 1 among thousands still shows.
            let length = peak > 0 ? max(1, Int((Double(b.count) / Double(peak) * Double(width)).rounded())) : 0
            let pad = String(repeating: " ", count: labelWidth - b.label.count)
            out += pad + b.label + " | " + String(repeating: "#", count: length) + " \(b.count)\n"
        }
        return out
    }

    private func plain(_ value: Double?) -> String { value.map { format($0, 2) } ?? "—" }

    private func signed(_ value: Double?) -> String {
        guard let value else { return "" }
        return (value > 0 ? "+" : "") + format(value, 2)
    }

    // Table cells must not break the row.
    private func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
