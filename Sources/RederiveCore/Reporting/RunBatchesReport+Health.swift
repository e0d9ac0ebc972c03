/// The server's health each batch saw (`BatchRecord.claimHealth`, `commitHealth`), for
/// `status --run N` (a table after the batches), its `--html` page and the batch section
/// of `status --html`: each measured signal over the run with its yellow and red limits.
extension RunBatchesReport {
    /// The signals measured in `batches`, in the order first seen.
    static func healthSignals(_ batches: [BatchRecord]) -> [String] {
        var seen: [String] = []
        for b in batches {
            for s in (b.claimHealth?.signals ?? []) + (b.commitHealth?.signals ?? []) where !seen.contains(s.signal) {
                seen.append(s.signal)
            }
        }
        return seen
    }

    /// The limits `signal` was judged by: the latest claim that kept them.
    static func limits(of signal: String, in batches: [BatchRecord]) -> (yellow: Double, red: Double)? {
        for b in batches.reversed() {
            if let s = b.claimHealth?.signals.first(where: { $0.signal == signal }), let yellow = s.yellow,
                let red = s.red
            {
                return (yellow, red)
            }
        }
        return nil
    }

    /// A value short enough for a table cell: `120.0M`, `4.5k`, `0.85`, `3`.
    static func compact(_ value: Double) -> String {
        let size = abs(value)
        if size >= 1e9 { return format(value / 1e9, 1) + "G" }
        if size >= 1e6 { return format(value / 1e6, 1) + "M" }
        if size >= 1e4 { return format(value / 1e3, 1) + "k" }
        if value == value.rounded() { return format(value, 0) }
        return format(value, size < 1 ? 3 : 2)
    }

    /// The health table of `text()`: per batch one row at its claim and one at its commit,
    /// each signal's value marked `!` when yellow and `!!` when red; empty when no batch kept any.
    func healthText(limit: Int) -> String {
        let shown = Array(batches.enumerated()).suffix(limit)
        let signals = Self.healthSignals(shown.map(\.element))
        guard !signals.isEmpty else { return "" }
        var out =
            "\nhealth         per batch at its claim and its commit (! yellow, !! red, age_s: the reading's age)\n"
        let limits = signals.compactMap { s in Self.limits(of: s, in: batches).map { (s, $0) } }
        if !limits.isEmpty {
            out +=
                "limits         "
                + limits.map { "\($0.0) \(Self.compact($0.1.yellow))/\(Self.compact($0.1.red))" }
                .joined(separator: ", ") + "\n"
        }
        var rows: [[String]] = []
        for (index, batch) in shown {
            for (moment, health) in [("claim", batch.claimHealth), ("commit", batch.commitHealth)] {
                guard let health else { continue }
                let values = signals.map { name -> String in
                    guard let s = health.signals.first(where: { $0.signal == name }) else { return "-" }
                    guard let value = s.value else { return "n/a" }
                    let mark = s.grade == "red" ? "!!" : s.grade == "yellow" ? "!" : ""
                    return Self.compact(value) + mark
                }
                rows.append([String(index + 1), moment, health.grade, format(health.age, 1)] + values)
            }
        }
        return out
            + StoreStatus.table(
                header: ["batch", "at", "grade", "age_s"] + signals, rows: rows,
                rightAligned: Set([0, 3] + signals.indices.map { $0 + 4 }))
    }

    /// The charts of `batches` (labelled `labels`): records per batch, its seconds by phase, and
    /// `healthCharts`.
    static func batchCharts(_ batches: [BatchRecord], labels: [String]) -> String {
        SVGChart.bars(
            labels: labels, series: [.init(name: "records", values: batches.map { Double($0.records) })],
            id: "chart-batch-size", caption: "Records per batch")
            + SVGChart.bars(
                labels: labels,
                series: [
                    .init(name: "read", values: batches.map(\.readSeconds)),
                    .init(name: "derive", values: batches.map(\.deriveSeconds)),
                    .init(name: "commit", values: batches.map(\.commitSeconds)),
                    .init(name: "waited", values: batches.map(\.waitedSeconds)),
                ], id: "chart-batch-time", caption: "Seconds per batch", format: { format($0, 3) })
            + healthCharts(batches, labels: labels)
    }

    /// One chart per signal measured in `batches` (labelled `labels`): its value at each
    /// batch's claim and commit, its yellow and red limits as dashed lines.
    static func healthCharts(_ batches: [BatchRecord], labels: [String]) -> String {
        let measured = healthSignals(batches).filter { signal in
            batches.contains { $0.claimHealth?[signal] != nil || $0.commitHealth?[signal] != nil }
        }
        return measured.enumerated().map { index, signal in
            let limit = limits(of: signal, in: batches)
            return SVGChart.lines(
                labels: labels,
                lines: [
                    .init(name: "at claim", values: batches.map { $0.claimHealth?[signal] }),
                    .init(name: "at commit", values: batches.map { $0.commitHealth?[signal] }),
                ],
                levels: limit.map {
                    [
                        .init(name: "yellow \(compact($0.yellow))", value: $0.yellow, cls: "limit-yellow"),
                        .init(name: "red \(compact($0.red))", value: $0.red, cls: "limit-red"),
                    ]
                } ?? [],
                id: "chart-health-\(index)", caption: "\(signal) per batch", format: compact)
        }.joined()
    }

    /// The run's page (`status --run N --html FILE`): its batches' size and time, and each
    /// measured health signal over the run with its limits, then the batch table.
    public func html() -> String {
        var doc = HTMLDocument()
        let esc = HTMLDocument.escape
        doc.element("h1", "Run \(runID) (\(status))")
        let t = totals
        doc.element(
            "p",
            "\(t.batches) batches, \(t.records) records; read \(format(t.readSeconds, 2)) s, derive "
                + "\(format(t.deriveSeconds, 2)) s, commit \(format(t.commitSeconds, 2)) s, waited "
                + "\(format(t.waitedSeconds, 2)) s.")
        guard !batches.isEmpty else { return doc.page(title: "Run \(runID)") }
        // As the status page: the latest batches only, so a long run's page stays light.
        let charted = Array(batches.suffix(StoreStatus.chartedBatches))
        let labels = charted.indices.map { String(batches.count - charted.count + $0 + 1) }
        doc.element("h2", "Batch size, time and server health")
        if charted.count < batches.count { doc.element("p", "The latest \(charted.count) batches charted.") }
        if Self.healthSignals(charted).isEmpty {
            doc.element("p", "No health kept: the run watched none (--throttle off) or predates it.")
        }
        doc.raw("<div class=\"charts\">\n" + Self.batchCharts(charted, labels: labels) + "</div>\n")
        doc.element("h2", "Batches")
        doc.table(
            header: ["batch", "worker", "records", "read_s", "derive_s", "commit_s", "waited_s", "why", "finished_at"],
            rows: batches.enumerated().map { i, b in
                [
                    String(i + 1), esc(b.worker), String(b.records), format(b.readSeconds, 3),
                    format(b.deriveSeconds, 3), format(b.commitSeconds, 3), format(b.waitedSeconds, 3),
                    esc(b.waitReason ?? "-"), esc(b.finishedAt),
                ]
            }, numeric: [0, 2, 3, 4, 5, 6])
        return doc.page(title: "Run \(runID)")
    }

    /// Writes `html()` to `path` atomically (temporary name, then rename); creates the parent directory.
    public func writeHTML(to path: String) throws(RederiveError) {
        try AtomicFile.write(html(), to: path)
    }
}
