/// One run's batches for `rederive status --run N`: the record `RunGovernor` keeps (who did
/// each batch, its keys, size, read / derive / commit seconds, what it waited for, the server's
/// health at its claim and its commit), with the control in force for the run.
public struct RunBatchesReport: Sendable, Equatable {
    /// The run.
    public var runID: Int64
    /// Its status in the history.
    public var status: String
    /// Its batches, in the order they were recorded.
    public var batches: [BatchRecord]
    /// The control in force for it (a pause, a rate).
    public var control: RunControlState

    /// Creates a report.
    public init(runID: Int64, status: String, batches: [BatchRecord], control: RunControlState) {
        (self.runID, self.status, self.batches, self.control) = (runID, status, batches, control)
    }

    /// The batches summed.
    public var totals: BatchTotals { .of(batches) }

    /// `{"run","status","paused","pause":{…}|null,"maxRate","totals":{…},"batches":[{…}]}`; each
    /// batch has `claimHealth` and `commitHealth`: `{"grade","age","signals":[{"signal","value",
    /// "grade","yellow","red"}|{"signal","value":null,"unmeasurable"}]}`, or null when none was kept.
    public func json() -> String {
        func text(_ value: String?) -> String { value.map(JSONText.string) ?? "null" }
        func seconds(_ value: Double) -> String { JSONText.number((value * 1000).rounded() / 1000) }
        let t = totals
        let rows = batches.map { b in
            "{\"worker\":\(JSONText.string(b.worker)),\"seqFrom\":\(b.seqFrom.map(String.init) ?? "null"),"
                + "\"seqTo\":\(b.seqTo.map(String.init) ?? "null"),\"records\":\(b.records),"
                + "\"readSeconds\":\(seconds(b.readSeconds)),\"deriveSeconds\":\(seconds(b.deriveSeconds)),"
                + "\"commitSeconds\":\(seconds(b.commitSeconds)),\"waitedSeconds\":\(seconds(b.waitedSeconds)),"
                + "\"waitReason\":\(text(b.waitReason)),\"finishedAt\":\(JSONText.string(b.finishedAt)),"
                + "\"claimHealth\":\(b.claimHealth?.json ?? "null"),\"commitHealth\":\(b.commitHealth?.json ?? "null")}"
        }
        let paused = control.isPaused()
        let pause =
            paused
            ? "{\"since\":\(text(control.pausedSince)),\"by\":\(text(control.pausedBy)),"
                + "\"reason\":\(text(control.reason)),\"until\":\(text(control.pausedUntil))}" : "null"
        return "{\"run\":\(runID),\"status\":\(JSONText.string(status)),\"paused\":\(paused),\"pause\":\(pause),"
            + "\"maxRate\":\(control.maxRate.map(JSONText.number) ?? "null"),"
            + "\"totals\":{\"batches\":\(t.batches),\"records\":\(t.records),\"readSeconds\":\(seconds(t.readSeconds)),"
            + "\"deriveSeconds\":\(seconds(t.deriveSeconds)),\"commitSeconds\":\(seconds(t.commitSeconds)),"
            + "\"waitedSeconds\":\(seconds(t.waitedSeconds))},"
            + "\"batches\":[\(rows.joined(separator: ","))]}"
    }

    /// A few lines and a table of the batches (the latest `limit`), for people.
    public func text(limit: Int = 50) -> String {
        var out = "run            \(runID) (\(status))\n"
        if control.isPaused() { out += TerminalText.escaped("paused         \(control.pauseText.dropFirst(7))") + "\n" }
        if let rate = control.maxRate { out += "max-rate       \(format(rate, rate < 10 ? 2 : 0)) records/s\n" }
        let t = totals
        out +=
            "batches        \(t.batches), \(t.records) records; read \(format(t.readSeconds, 2)) s, "
            + "derive \(format(t.deriveSeconds, 2)) s, commit \(format(t.commitSeconds, 2)) s, "
            + "waited \(format(t.waitedSeconds, 2)) s\n"
        guard !batches.isEmpty else { return out }
        let shown = batches.suffix(limit)
        if shown.count < batches.count { out += "  (the latest \(shown.count))\n" }
        out += StoreStatus.table(
            header: ["worker", "keys", "records", "read_s", "derive_s", "commit_s", "waited_s", "why", "finished_at"],
            rows: shown.map { b in
                [
                    b.worker, b.seqFrom.map { "\($0)...\(b.seqTo ?? $0)" } ?? "-", String(b.records),
                    format(b.readSeconds, 3), format(b.deriveSeconds, 3), format(b.commitSeconds, 3),
                    format(b.waitedSeconds, 3), b.waitReason ?? "-", b.finishedAt,
                ]
            }, rightAligned: [2, 3, 4, 5, 6])
        return out + healthText(limit: limit)
    }
}
