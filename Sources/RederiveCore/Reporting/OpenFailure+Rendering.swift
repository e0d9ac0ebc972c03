extension OpenFailure {
    /// The failure as one JSON object:
    /// `{"id","file","line","stage","code","message","run","firstSeenAt","lastSeenAt","key","acknowledgedAt"}`
    /// (`id`, `file`, `line` and `acknowledgedAt` may be null).
    public func json() -> String {
        let fields = [
            "\"id\":\(recordID.map(JSONText.string) ?? "null")",
            "\"file\":\(file.map(JSONText.string) ?? "null")",
            "\"line\":\(line.map(String.init) ?? "null")",
            "\"stage\":\(JSONText.string(stage))",
            "\"code\":\(JSONText.string(code))",
            "\"message\":\(JSONText.string(message))",
            "\"run\":\(runID)",
            "\"firstSeenAt\":\(JSONText.string(firstSeenAt))",
            "\"lastSeenAt\":\(JSONText.string(lastSeenAt))",
            "\"key\":\(JSONText.string(recordKey))",
            "\"acknowledgedAt\":\(acknowledgedAt.map(JSONText.string) ?? "null")",
        ]
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A list of failures as one JSON object: `{"store","count","failures":[...]}`.
    public static func json(_ failures: [OpenFailure], store: String) -> String {
        "{\"store\":\(JSONText.string(store)),\"count\":\(failures.count),\"failures\":["
            + failures.map { $0.json() }.joined(separator: ",") + "]}"
    }

    /// A list of failures for people: an aligned table (location, stage, code, id, run that
    /// last saw it, first seen, message), then a count (and how many are acknowledged). Ends
    /// with a newline.
    public static func text(_ failures: [OpenFailure]) -> String {
        guard !failures.isEmpty else { return "no open failures\n" }
        let acknowledged = failures.filter { $0.acknowledgedAt != nil }.count
        return table(failures) + "\(failures.count) open failure\(failures.count == 1 ? "" : "s")"
            + (acknowledged > 0 ? " (\(acknowledged) acknowledged)" : "") + "\n"
    }

    /// The aligned table of `text(_:)` without the count line.
    public static func table(_ failures: [OpenFailure]) -> String {
        let rows = failures.map { f in
            [f.location, f.stage, f.code, f.recordID ?? "-", String(f.runID), f.firstSeenAt, f.message]
        }
        return StoreStatus.table(
            header: ["file:line", "stage", "code", "id", "run", "first seen", "message"],
            rows: rows, rightAligned: [4])
    }
}
