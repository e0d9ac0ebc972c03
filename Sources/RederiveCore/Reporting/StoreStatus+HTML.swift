import Foundation

extension StoreStatus {
    /// The status as a self-contained HTML page (`rederive status --html FILE`), in the
    /// preview's style: headline cards, records by summary version, stale records by reason,
    /// open failures by code (charts and tables), and the run history as charts (records per
    /// run: done, unchanged, skipped; duration per run), oldest run on the left.
    public func html() -> String {
        var doc = HTMLDocument()
        let esc = HTMLDocument.escape
        doc.element("h1", "Store status")
        doc.raw(
            "<p class=\"meta\">" + HTMLDocument.code(path) + " · this build writes summary v\(currentVersion) "
                + "(fingerprint " + HTMLDocument.code(currentFingerprint) + ")</p>\n")
        doc.raw("<div class=\"cards\">\n")
        let lastRun = recentRuns.first
        let lastBad = lastRun.map { $0.status != "completed" } ?? false
        for (label, value, cls) in [
            ("records", String(totalRecords), ""), ("fresh", String(freshRecords), ""),
            ("stale", String(stale.total), stale.total > 0 ? "warn" : ""),
            ("open failures", String(openFailures), openFailures > 0 ? "bad" : ""),
            ("last run", lastRun.map { "\($0.command) \($0.status)" } ?? "none", lastBad ? "bad" : ""),
        ] {
            doc.raw("<div class=\"card \(cls)\"><b>\(esc(value))</b><span>\(esc(label))</span></div>\n")
        }
        doc.raw("</div>\n")

        doc.element("h2", "Records by summary version")
        let versionLabels = recordsByVersion.map { $0.summaryVersion.map { "v\($0)" } ?? "never derived" }
        doc.raw("<div class=\"charts\">\n")
        doc.raw(
            SVGChart.bars(
                labels: versionLabels,
                series: [.init(name: "records", values: recordsByVersion.map { Double($0.records) })],
                id: "chart-versions", caption: "Records by stored summary version"))
        doc.raw(
            SVGChart.bars(
                labels: ["version", "fingerprint", "missing"],
                series: [
                    .init(name: "records", values: [stale.version, stale.fingerprint, stale.missing].map(Double.init))
                ],
                id: "chart-stale", caption: "Stale records by reason"))
        doc.raw("</div>\n")
        doc.table(
            header: ["version", "records"],
            rows: zip(versionLabels, recordsByVersion).map { [esc($0), String($1.records)] }, numeric: [1])
        doc.element("h2", "Stale records by reason")
        doc.table(
            header: ["reason", "records", "meaning"],
            rows: [
                ["version", String(stale.version), "stored summary_version differs from this build's"],
                ["fingerprint", String(stale.fingerprint), "same version, different derivation fingerprint"],
                ["missing", String(stale.missing), "no summary yet"],
            ], numeric: [1])
        if stale.total > 0 {
            doc.element(
                "p",
                Self.staleHint(rewrites: stale.version + stale.fingerprint, missing: stale.missing, db: path)
                    .replacingOccurrences(of: "`", with: ""))
        }

        doc.element("h2", "Open failures by code")
        if failures.isEmpty {
            doc.element("p", "None.")
        } else {
            doc.raw(SVGChart.failureBars(failuresByCode, series: "open", caption: "Open failures by code"))
            doc.table(
                header: ["stage", "code", "open"],
                rows: failures.map { [esc($0.stage), HTMLDocument.code($0.code), String($0.count)] }, numeric: [2])
        }

        doc.element("h2", "Run history")
        if recentRuns.isEmpty {
            doc.element("p", "No runs yet.")
        } else {
            let runs = Array(recentRuns.reversed())
            let labels = runs.map { "\($0.id) \($0.command)" }
            doc.element("p", "The last \(runs.count) of \(totalRuns) runs, oldest on the left.")
            doc.raw("<div class=\"charts\">\n")
            doc.raw(
                SVGChart.bars(
                    labels: labels,
                    series: [
                        .init(name: "done", values: runs.map { Double($0.done) }),
                        .init(name: "unchanged", values: runs.map { Double($0.unchanged) }),
                        .init(name: "skipped", values: runs.map { Double($0.skipped) }),
                    ], id: "chart-runs-records", caption: "Records per run"))
            doc.raw(
                SVGChart.bars(
                    labels: labels, series: [.init(name: "seconds", values: runs.map { $0.durationSeconds ?? 0 })],
                    id: "chart-runs-duration", caption: "Duration per run (s)", format: { format($0, 1) }))
            doc.raw(
                SVGChart.bars(
                    labels: labels, series: [.init(name: "skipped", values: runs.map { Double($0.skipped) })],
                    id: "chart-runs-skipped", caption: "Skipped records per run"))
            doc.raw("</div>\n")
            doc.table(
                header: [
                    "id", "command", "status", "exit", "started", "duration", "read", "done", "unchanged", "skipped",
                    "pipeline",
                ],
                rows: recentRuns.map { run in
                    [
                        String(run.id), esc(run.command), esc(run.status), run.exitStatus.map(String.init) ?? "–",
                        esc(run.startedAt), run.durationSeconds.map { format($0, 2) + " s" } ?? "–", String(run.read),
                        String(run.done), String(run.unchanged), String(run.skipped), esc(run.pipeline ?? "–"),
                    ]
                }, numeric: [0, 3, 5, 6, 7, 8, 9])
        }
        batchesHTML(&doc)
        return doc.page(title: "Store status: " + path)
    }

    /// Writes the page (`StoreStatus.renderers`' HTML) to `path` atomically (temporary name, then
    /// rename); creates the parent directory.
    public func writeHTML(to path: String) throws(RederiveError) {
        try AtomicFile.write(rendered(Format.html), to: path)
    }
}
