/// What a store run did: the run-history entry, for the tally line and for `--json`.
public struct RunReport: Sendable {
    /// The run's id in the store's history.
    public var runID: Int64
    /// The command: `import`, `derive`, `export`, `summarize`...
    public var command: String
    /// How it ended.
    public var status: RunStatus
    /// The process exit status it implies.
    public var exitStatus: ExitStatus
    /// Counts and timing.
    public var statistics: RunStatistics
    /// Named counts (`imported`, `updated`, `derived`, ...) in display order.
    public var counts: [(String, Int)]
    /// Issues by error code.
    public var issuesByCode: [String: Int]
    /// Failures not already open in the ledger.
    public var newFailures: Int
    /// Summary algorithm version and fingerprint used.
    public var summaryVersion: Int
    /// Derivation fingerprint used.
    public var fingerprint: String
    /// The run this one continued, if any.
    public var resumedFrom: Int64?
    /// Why the run stopped early (budget or signal), if it did.
    public var stopReason: String?
    /// The issue report file the run wrote, if any (with its per-run name, when it has one).
    public var reportPath: String?
    /// The output file the run wrote (an export's summaries), if any.
    public var outputPath: String?
    /// What the run could not do although asked to, for people (ids not found, failures
    /// that need a re-import, records an export left out as stale). A completed run with
    /// warnings ends with exit status 3, like one that skipped records.
    public var warnings: [String] = []
    /// The run's batches summed (this process's), when the run was recorded.
    public var batches: BatchTotals?
    /// The health throttle's state at the end (this process's), when the run watched the
    /// server's health.
    public var throttle: ThrottleFigures?
    /// Said instead of the counts when the run did nothing by design (a plan already
    /// applied by this run): the tally line and the JSON (`note`) carry it.
    public var note: String?
    /// A dry run's list of what would change, one compact JSON object per record
    /// (`revert --dry-run`: id and fields, current → restored); in the JSON as `changes`.
    public var changes: [String]?

    /// Creates a report.
    public init(
        runID: Int64, command: String, status: RunStatus, exitStatus: ExitStatus, statistics: RunStatistics,
        counts: [(String, Int)], issuesByCode: [String: Int], newFailures: Int, summaryVersion: Int,
        fingerprint: String, resumedFrom: Int64?, stopReason: String?
    ) {
        self.runID = runID
        self.command = command
        self.status = status
        self.exitStatus = exitStatus
        self.statistics = statistics
        self.counts = counts
        self.issuesByCode = issuesByCode
        self.newFailures = newFailures
        self.summaryVersion = summaryVersion
        self.fingerprint = fingerprint
        self.resumedFrom = resumedFrom
        self.stopReason = stopReason
    }

    /// The report of a command that found its work done by run `runID` (a plan applied, a
    /// worker group's run finished): completed, nothing read or written, `note` says why.
    static func nothingLeft(runID: Int64, command: String, deriver: SummaryDeriver, note: String) -> RunReport {
        var report = RunReport(
            runID: runID, command: command, status: .completed, exitStatus: .ok, statistics: RunStatistics(),
            counts: [], issuesByCode: [:], newFailures: 0, summaryVersion: deriver.version,
            fingerprint: deriver.fingerprint, resumedFrom: nil, stopReason: nil)
        report.note = note
        return report
    }

    /// The machine-readable run summary (one JSON object).
    public func json() -> String { "{\(jsonFields.joined(separator: ","))}" }

    /// The members of `json()`, `"key":value` each (a pipeline's results inline them per stage).
    public var jsonFields: [String] {
        var fields: [String] = [
            "\"runId\":\(runID)",
            "\"command\":\(JSONText.string(command))",
            "\"status\":\(JSONText.string(status.rawValue))",
            "\"exitStatus\":\(exitStatus)",
        ]
        var countFields = ["\"read\":\(statistics.recordsRead)"]
        countFields += counts.map { "\(JSONText.string($0.0)):\($0.1)" }
        countFields += [
            "\"unchanged\":\(statistics.recordsUnchanged)", "\"skipped\":\(statistics.recordsSkipped)",
            "\"failed\":\(statistics.recordsSkipped + statistics.fileFaults)",
            "\"fileFaults\":\(statistics.fileFaults)", "\"newFailures\":\(newFailures)",
        ]
        fields.append("\"counts\":{\(countFields.joined(separator: ","))}")
        let issueCounts = issuesByCode.keys.sorted().map { "\(JSONText.string($0)):\(issuesByCode[$0]!)" }
        fields.append("\"issuesByCode\":{\(issueCounts.joined(separator: ","))}")
        fields.append("\"summaryVersion\":\(summaryVersion)")
        fields.append("\"fingerprint\":\(JSONText.string(fingerprint))")
        fields.append("\"durationSeconds\":\(JSONText.number((statistics.seconds * 1000).rounded() / 1000))")
        fields.append("\"recordsPerSecond\":\(JSONText.number(statistics.recordsPerSecond.rounded()))")
        fields.append("\"megabytesPerSecond\":\(JSONText.number((statistics.megabytesPerSecond * 10).rounded() / 10))")
        fields.append("\"peakResidentMB\":\(JSONText.number(ResourceUsage.peakResidentMegabytes.rounded()))")
        fields.append("\"resumedFrom\":\(resumedFrom.map(String.init) ?? "null")")
        fields.append("\"stopReason\":\(stopReason.map(JSONText.string) ?? "null")")
        fields.append("\"report\":\(reportPath.map(JSONText.string) ?? "null")")
        fields.append("\"output\":\(outputPath.map(JSONText.string) ?? "null")")
        fields.append("\"warnings\":[\(warnings.map(JSONText.string).joined(separator: ","))]")
        if let note { fields.append("\"note\":\(JSONText.string(note))") }
        if let changes { fields.append("\"changes\":[\(changes.joined(separator: ","))]") }
        return fields
    }

    // "filesSkipped" → "files skipped" for people; JSON keeps the camelCase key.
    private static func words(_ key: String) -> String {
        key.reduce(into: "") { out, c in
            if c.isUppercase { out += " " + c.lowercased() } else { out.append(c) }
        }
    }

    /// Whether the run is in a store's history (`summarize` and dry runs are not: run id 0).
    public var isRecorded: Bool { runID != 0 }

    /// The one-line tally for stderr, e.g.
    /// `import (run 2): 58 read, 45 imported, …, 0 unchanged, 13 skipped, 1 file fault (…) in 0.31 s (…)`
    /// or, for a run kept in no store, `summarize: 58 read, 45 summarized, 13 skipped, …`.
    public func tallyLine() -> String {
        let s = statistics
        if let note { return "\(command)\(isRecorded ? " (run \(runID))" : ""): \(note)" }
        var line = command
        // A run reopened under its own id (a plan's apply) continues itself.
        let continued = resumedFrom.map { $0 == runID ? ", continued" : ", continuing run \($0)" }
        if isRecorded { line += " (run \(runID)\(continued ?? ""))" }
        line += ": \(s.recordsRead) read"
        for (name, value) in counts { line += ", \(value) \(Self.words(name))" }
        if isRecorded || s.recordsUnchanged > 0 { line += ", \(s.recordsUnchanged) unchanged" }
        line += ", \(s.recordsSkipped) skipped"
        if s.fileFaults > 0 { line += ", \(s.fileFaults) file fault\(s.fileFaults == 1 ? "" : "s")" }
        if !issuesByCode.isEmpty {
            line += " (" + issuesByCode.keys.sorted().map { "\(issuesByCode[$0]!) \($0)" }.joined(separator: ", ") + ")"
        }
        line += " in \(format(s.seconds, 2)) s (\(format(s.recordsPerSecond, 0)) records/s"
        if s.decodedBytes > 0 { line += ", \(format(s.megabytesPerSecond, 1)) MB/s" }
        line += ", peak \(format(ResourceUsage.peakResidentMegabytes, 0)) MB)"
        if status != .completed { line += "; \(status.rawValue)" + (stopReason.map { ": \($0)" } ?? "") }
        return line
    }
}
