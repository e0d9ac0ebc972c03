extension StoredRecord {
    /// The record as one JSON object (stable keys):
    ///
    /// ```
    /// {"id","stored":true,"roomName","capturedAt","formatVersion","source":{"file","line"},
    ///  "rawSize","rawHash","storedAt",
    ///  "staleness" (fresh|version|fingerprint|missing),
    ///  "summary":{"summaryVersion","fingerprint","derivedAt","run","summary":{...}} or null,
    ///  "failures":[failure objects as in `rederive failures --json`],
    ///  "history":[{"summaryVersion","fingerprint","derivedAt","run","summary"}] or null (not kept)}
    /// ```
    public func json() -> String {
        func summaryObject(version: Int, fingerprint: String, derivedAt: String, runID: Int64?, json: String) -> String
        {
            "{\"summaryVersion\":\(version),\"fingerprint\":\(JSONText.string(fingerprint)),"
                + "\"derivedAt\":\(JSONText.string(derivedAt)),\"run\":\(runID.map(String.init) ?? "null"),"
                + "\"summary\":\(json)}"
        }
        let summaryText =
            summary.map {
                summaryObject(
                    version: $0.summaryVersion, fingerprint: $0.fingerprint, derivedAt: $0.derivedAt,
                    runID: $0.runID, json: $0.json)
            } ?? "null"
        let historyText =
            history.map { entries in
                "["
                    + entries.map {
                        summaryObject(
                            version: $0.summaryVersion, fingerprint: $0.fingerprint, derivedAt: $0.derivedAt,
                            runID: $0.runID, json: $0.json)
                    }.joined(separator: ",") + "]"
            } ?? "null"
        let fields = [
            "\"id\":\(JSONText.string(id))",
            "\"stored\":true",
            "\"roomName\":\(JSONText.string(roomName))",
            "\"capturedAt\":\(JSONText.string(capturedAt))",
            "\"formatVersion\":\(sourceFormatVersion)",
            "\"source\":{\"file\":\(JSONText.string(sourceFile)),\"line\":\(sourceLine)}",
            "\"rawSize\":\(rawSize)",
            "\"rawHash\":\(JSONText.string(rawHash))",
            "\"storedAt\":\(JSONText.string(storedAt))",
            "\"staleness\":\(JSONText.string(staleness.rawValue))",
            "\"summary\":\(summaryText)",
            "\"failures\":[\(failures.map { $0.json() }.joined(separator: ","))]",
            "\"history\":\(historyText)",
        ]
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// The record for people: `label  value` lines, the summary JSON, the history and the
    /// open failures. Ends with a newline. Text from the export (room name, capture time,
    /// file name) has its control characters escaped (`TerminalText`).
    public func text() -> String {
        var page = TextPage()
        page.line("id", id)
        page.line("room", "\(roomName), captured \(capturedAt)")
        page.line("source", "\(sourceFile):\(sourceLine) (format v\(sourceFormatVersion))")
        page.line("raw room", "\(rawSize) bytes, hash \(rawHash) (`rederive show \(id) --raw` prints it)")
        page.line("stored at", storedAt)
        if let summary {
            let run = summary.runID.map { " by run \($0)" } ?? ""
            page.line(
                "summary",
                "v\(summary.summaryVersion), fingerprint \(summary.fingerprint), "
                    + "derived \(summary.derivedAt)\(run)")
        } else {
            page.line("summary", "none (never derived)")
        }
        page.line("state", Self.stalenessText(staleness))
        if let summary { page.line("  " + summary.json) }
        page.line()
        if let history {
            if history.isEmpty {
                page.line("history", "no earlier summaries")
            } else {
                page.line("history", "\(history.count) earlier summar\(history.count == 1 ? "y" : "ies"), oldest first")
                for entry in history {
                    let run = entry.runID.map { " run \($0)" } ?? ""
                    page.line("  v\(entry.summaryVersion) \(entry.fingerprint) \(entry.derivedAt)\(run)  \(entry.json)")
                }
            }
        } else {
            page.line("history", "not kept by this store")
        }
        page.line()
        if failures.isEmpty {
            page.line("open failures", "none")
        } else {
            page.line("open failures", "\(failures.count)")
            page.append(OpenFailure.table(failures))
        }
        return page.text
    }

    static func stalenessText(_ staleness: Staleness) -> String {
        switch staleness {
        case .fresh: "fresh (current summary version and fingerprint)"
        case .version:
            "stale: summary version differs from this build's; "
                + StoreStatus.staleHint(rewrites: 1, missing: 0, db: nil)
        case .fingerprint:
            "stale: derivation fingerprint differs from this build's; "
                + StoreStatus.staleHint(rewrites: 1, missing: 0, db: nil)
        case .missing: "stale: no summary (\(StoreStatus.staleHint(rewrites: 0, missing: 1, db: nil)))"
        }
    }
}

extension StoredRecord {
    /// For an id that is not stored but has open failures (it failed before it could be
    /// stored): says so and lists them. Ends with a newline.
    public static func notStoredText(id: String, failures: [OpenFailure]) -> String {
        "id             \(TerminalText.escaped(id))\n"
            + "stored         no: it failed before it could be stored; its original line is in the export file below\n"
            + "\nopen failures  \(failures.count)\n" + OpenFailure.table(failures)
    }

    /// The JSON of `notStoredText`: `{"id","stored":false,"failures":[...]}`.
    public static func notStoredJSON(id: String, failures: [OpenFailure]) -> String {
        let items = failures.map { $0.json() }.joined(separator: ",")
        return "{\"id\":\(JSONText.string(id)),\"stored\":false,\"failures\":[\(items)]}"
    }
}
