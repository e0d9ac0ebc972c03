extension StoreStatus {
    /// The status as one JSON object (keys are stable; documented in `rederive status --help`):
    ///
    /// ```
    /// {"store","currentSummaryVersion","currentFingerprint",
    ///  "records":{"total","fresh","byVersion":[{"summaryVersion"(null = never derived),"records"}]},
    ///  "stale":{"total","version","fingerprint","missing"},
    ///  "failures":{"open","acknowledged","byCode":{code:n},"byStage":{stage:n},
    ///              "byStageAndCode":[{"stage","code","count"}]},
    ///  "runs":{"total","recent":[{"id","command","status","exitStatus","startedAt","durationSeconds",
    ///                             "read","done","unchanged","skipped","pipeline"}]}}
    /// ```
    ///
    /// A store whose derives are split across processes (PostgreSQL) adds
    /// `"deriveRanges":{"run","open","claimed","done","failed","claimedBy":{worker:n}}` and
    /// `"rangeRows":{"rows","runs"}` (the range rows kept, over all runs).
    public func json() -> String {
        func object(_ dict: [String: Int]) -> String {
            "{" + dict.keys.sorted().map { "\(JSONText.string($0)):\(dict[$0]!)" }.joined(separator: ",") + "}"
        }
        let versions = recordsByVersion.map {
            "{\"summaryVersion\":\($0.summaryVersion.map(String.init) ?? "null"),\"records\":\($0.records)}"
        }
        let failureRows = failures.map {
            "{\"stage\":\(JSONText.string($0.stage)),\"code\":\(JSONText.string($0.code)),\"count\":\($0.count)}"
        }
        let runs = recentRuns.map { run in
            let fields = [
                "\"id\":\(run.id)",
                "\"command\":\(JSONText.string(run.command))",
                "\"status\":\(JSONText.string(run.status))",
                "\"exitStatus\":\(run.exitStatus.map(String.init) ?? "null")",
                "\"startedAt\":\(JSONText.string(run.startedAt))",
                "\"durationSeconds\":"
                    + (run.durationSeconds.map { JSONText.number(($0 * 1000).rounded() / 1000) } ?? "null"),
                "\"read\":\(run.read)",
                "\"done\":\(run.done)",
                "\"unchanged\":\(run.unchanged)",
                "\"skipped\":\(run.skipped)",
                "\"pipeline\":\(run.pipeline.map(JSONText.string) ?? "null")",
            ]
            return "{" + fields.joined(separator: ",") + "}"
        }
        var fields = [
            "\"store\":\(JSONText.string(path))",
            "\"currentSummaryVersion\":\(currentVersion)",
            "\"currentFingerprint\":\(JSONText.string(currentFingerprint))",
            "\"records\":{\"total\":\(totalRecords),\"fresh\":\(freshRecords),"
                + "\"byVersion\":[\(versions.joined(separator: ","))]}",
            "\"stale\":{\"total\":\(stale.total),\"version\":\(stale.version),"
                + "\"fingerprint\":\(stale.fingerprint),\"missing\":\(stale.missing)}",
            "\"newer\":{\"records\":\(newer),\"newestVersion\":\(newestVersion.map(String.init) ?? "null")}",
            "\"history\":{\"summaries\":\(historyRows),\"bytes\":\(historyBytes)}",
            "\"failures\":{\"open\":\(openFailures),\"acknowledged\":\(acknowledgedFailures),"
                + "\"byCode\":\(object(failuresByCode)),"
                + "\"byStage\":\(object(failuresByStage)),"
                + "\"byStageAndCode\":[\(failureRows.joined(separator: ","))]}",
            "\"runs\":{\"total\":\(totalRuns),\"recent\":[\(runs.joined(separator: ","))]}",
        ]
        if let r = deriveRanges {
            fields.append(
                "\"deriveRanges\":{\"run\":\(r.runID),\"open\":\(r.open),\"claimed\":\(r.claimed),"
                    + "\"done\":\(r.done),\"failed\":\(r.failed),\"claimedBy\":\(object(r.claimedBy))}")
        }
        if let kept = rangeRows {
            fields.append("\"rangeRows\":{\"rows\":\(kept.rows),\"runs\":\(kept.runs)}")
        }
        fields.append(controlJSON)
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// The status as a compact text for people: a few `label  value` lines, then aligned
    /// tables (versions, open failures, latest runs). Ends with a newline. Control
    /// characters in stored text (commands, pipeline names) are escaped (`TerminalText`).
    public func text() -> String {
        var page = TextPage()
        page.line("store", path)
        page.line("this build", "summary v\(currentVersion), fingerprint \(currentFingerprint)")
        page.line(
            "records",
            "\(totalRecords) (\(freshRecords) fresh, \(stale.total) stale"
                + (newer > 0 ? ", \(newer) newer)" : ")"))
        if newer > 0 {
            page.line(
                "newer",
                "\(newer) derived by a newer rederive (v\(newestVersion ?? 0)); "
                    + "this is v\(currentVersion): left as they are (--allow-downgrade overwrites them)")
        }
        page.line(
            "history",
            "\(historyRows) replaced summaries kept (\(format(Double(historyBytes) / 1e6, 1)) MB); "
                + "`rederive revert --run N` restores a run's, `rederive history --prune` trims")
        if stale.total > 0 {
            let rewrites = stale.version + stale.fingerprint
            page.line(
                "stale",
                "\(stale.version) version, \(stale.fingerprint) fingerprint, \(stale.missing) missing"
                    + " (\(Self.staleHint(rewrites: rewrites, missing: stale.missing, db: path)))"
            )
        }

        if !recordsByVersion.isEmpty {
            page.line()
            page.line("by summary version")
            page.append(
                Self.table(
                    header: ["version", "records"],
                    rows: recordsByVersion.map {
                        [$0.summaryVersion.map { "v\($0)" } ?? "never derived", String($0.records)]
                    },
                    rightAligned: [1]))
        }

        page.line()
        if failures.isEmpty {
            page.line("open failures", "none")
        } else {
            page.line(
                "open failures",
                String(openFailures)
                    + (acknowledgedFailures > 0
                        ? " (\(acknowledgedFailures) acknowledged: `failures --acknowledged`)" : ""))
            page.append(
                Self.table(
                    header: ["stage", "code", "count"],
                    rows: failures.map { [$0.stage, $0.code, String($0.count)] }, rightAligned: [2]))
        }

        page.line()
        if recentRuns.isEmpty {
            page.line("runs", "none")
        } else {
            page.line("runs", "last \(recentRuns.count) of \(totalRuns), newest first")
            page.append(
                Self.table(
                    header: [
                        "id", "command", "status", "exit", "started_at", "duration", "read", "done", "unchanged",
                        "skipped", "pipeline",
                    ],
                    rows: recentRuns.map { run in
                        [
                            String(run.id), run.command, run.status, run.exitStatus.map(String.init) ?? "-",
                            run.startedAt, run.durationSeconds.map { format($0, 2) + " s" } ?? "-", String(run.read),
                            String(run.done), String(run.unchanged), String(run.skipped), run.pipeline ?? "-",
                        ]
                    },
                    rightAligned: [0, 3, 5, 6, 7, 8, 9]))
        }
        if let r = deriveRanges {
            page.line()
            page.line(
                "ranges",
                "run \(r.runID): \(r.open) open, \(r.claimed) claimed, \(r.done) done, "
                    + "\(r.failed) failed"
            )
            for worker in r.claimedBy.keys.sorted() {
                page.line("  claimed by \(worker): \(r.claimedBy[worker]!)")
            }
        }
        if let kept = rangeRows, kept.rows > 0 {
            page.line(
                "range rows",
                "\(kept.rows) kept for \(kept.runs) run(s); "
                    + "`rederive history --prune` removes those of pruned runs")
        }
        page.append(controlText)
        return page.text
    }

    // Columns padded to their widest cell, two spaces apart, indented by two; trailing
    // spaces trimmed so the text diffs cleanly. Cells are data (room names, file names,
    // messages): their control characters are escaped, so a cell stays on its row.
    static func table(header: [String], rows: [[String]], rightAligned: Set<Int>) -> String {
        let all = ([header] + rows).map { $0.map(TerminalText.escaped) }
        var widths = [Int](repeating: 0, count: header.count)
        for row in all { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        var out = ""
        for row in all {
            var cells: [String] = []
            for (i, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                cells.append(rightAligned.contains(i) ? pad + cell : cell + pad)
            }
            var text = "  " + cells.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            out += text + "\n"
        }
        return out
    }
}

extension StoreStatus {
    /// What to run about stale records, for every hint (`status`, `status --html`, `show`):
    /// existing summaries that would change go the reviewed way (preview and plan, read, apply
    /// the plan, undo with `revert`); a bare `rederive derive` is advised only when no existing
    /// summary would change (records with no summary yet). `db` nil: the hint says `--db DB`.
    public static func staleHint(rewrites: Int, missing: Int, db: String?) -> String {
        let store = db ?? "DB"
        guard rewrites > 0 else { return "run `rederive derive --db \(store)` to derive them" }
        return "existing summaries would be rewritten: a backfill, so preview and plan it "
            + "(`rederive derive --db \(store) --all --dry-run --plan plan.json`), read the preview, then "
            + "apply that plan (`rederive derive --db \(store) --apply-plan plan.json`)"
    }
}
