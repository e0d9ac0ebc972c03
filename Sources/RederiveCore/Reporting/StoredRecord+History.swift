extension StoredRecord {
    /// The record's summaries over time for people: one line per summary, oldest first,
    /// the current one last, then each summary's JSON. Control characters in stored text
    /// (id, room name) are escaped (`TerminalText`), so each line stays one line.
    public func historyText() -> String {
        var page = TextPage()
        page.line("record \(id) (\(roomName))")
        let entries = history ?? []
        if entries.isEmpty && summary == nil {
            page.line("no summary yet")
            return page.text
        }
        for (n, e) in entries.enumerated() {
            page.line(
                "\(n + 1). v\(e.summaryVersion) \(e.fingerprint), derived \(e.derivedAt)"
                    + (e.runID.map { " by run \($0)" } ?? "")
                    + ", replaced \(e.replacedAt ?? "?") by run \(e.replacedByRun.map(String.init) ?? "?")")
            page.line("   \(e.json)")
        }
        if let s = summary {
            page.line(
                "\(entries.count + 1). v\(s.summaryVersion) \(s.fingerprint), derived \(s.derivedAt)"
                    + (s.runID.map { " by run \($0)" } ?? "") + " (current)")
            page.line("   \(s.json)")
        }
        return page.text
    }

    /// The same as one JSON object: `{"id","history":[{summaryVersion, fingerprint, derivedAt,
    /// run, replacedByRun, replacedAt, summary}], "current":{…} or null}`.
    public func historyJSON() -> String {
        func entry(
            _ version: Int, _ fingerprint: String, _ derivedAt: String, _ run: Int64?, _ json: String,
            replacedBy: Int64?, replacedAt: String?
        ) -> String {
            "{\"summaryVersion\":\(version),\"fingerprint\":\(JSONText.string(fingerprint)),"
                + "\"derivedAt\":\(JSONText.string(derivedAt)),\"run\":\(run.map(String.init) ?? "null"),"
                + "\"replacedByRun\":\(replacedBy.map(String.init) ?? "null"),"
                + "\"replacedAt\":\(replacedAt.map(JSONText.string) ?? "null"),\"summary\":\(json)}"
        }
        let past = (history ?? []).map {
            entry(
                $0.summaryVersion, $0.fingerprint, $0.derivedAt, $0.runID, $0.json, replacedBy: $0.replacedByRun,
                replacedAt: $0.replacedAt)
        }
        let current = summary.map {
            entry($0.summaryVersion, $0.fingerprint, $0.derivedAt, $0.runID, $0.json, replacedBy: nil, replacedAt: nil)
        }
        return "{\"id\":\(JSONText.string(id)),\"history\":[\(past.joined(separator: ","))],"
            + "\"current\":\(current ?? "null")}"
    }
}
