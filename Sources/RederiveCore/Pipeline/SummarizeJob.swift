import Foundation

/// What `rederive summarize` does, resolved once from flags.
public struct SummarizeConfiguration: Sendable {
    /// Export files to read (already expanded and sorted; see `ExportFiles.resolve`).
    public var files: [String]
    /// Concurrent workers.
    public var workers: Int
    /// Output file (`.jsonl` or `.jsonl.zst`); nil for standard output.
    public var outPath: String?
    /// Error report path (JSON Lines); nil for none.
    public var reportPath: String?
    /// The derivation to apply.
    public var deriver: SummaryDeriver
    /// Lines per batch handed to the workers.
    public var batchLines: Int

    /// Creates a configuration.
    public init(files: [String], workers: Int = ProcessInfo.processInfo.activeProcessorCount, outPath: String? = nil,
                reportPath: String? = nil, deriver: SummaryDeriver = SummaryDeriver(), batchLines: Int = 256) {
        self.files = files
        self.workers = max(1, workers)
        self.outPath = outPath
        self.reportPath = reportPath
        self.deriver = deriver
        self.batchLines = max(1, batchLines)
    }
}

/// The outcome of a run: statistics, issues, and the exit status they imply.
public struct JobOutcome: Sendable {
    /// Counts and timing.
    public var statistics: RunStatistics
    /// Issues by error code.
    public var issuesByCode: [String: Int]
    /// 0 when every record went through, 3 when some were skipped.
    public var exitStatus: Int32 { statistics.recordsSkipped + statistics.fileFaults > 0 ? 3 : 0 }
}

/// `rederive summarize`: streams exports, derives every record's summary on concurrent
/// workers, and writes one JSON object per good record, in input order.
public enum SummarizeJob {
    /// Runs the job. Record problems go to the report; only I/O faults on the outputs throw.
    public static func run(_ config: SummarizeConfiguration) throws(RederiveError) -> (JobOutcome, IssueReport) {
        let start = DispatchTime.now()
        let report = try IssueReport(path: config.reportPath)
        let output = try OutputSink(path: config.outPath)
        let pool = WorkerPool(workers: config.workers) { RecordProcessor(deriver: config.deriver) }
        let source = ExportBatchSource(files: config.files, maxLines: config.batchLines)
        defer { source.cancel() }  // an output error must not leave the reader thread waiting
        var stats = RunStatistics()
        var duplicates = DuplicateIDTracker()
        let version = config.deriver.version

        while let batch = source.next() {
            duplicates.enter(file: batch.file)
            stats.decodedBytes += batch.decodedBytes
            stats.fileBytes += batch.fileBytes
            let file = batch.file
            let results = pool.map(batch.lines) { processor, line -> Result<(String, [UInt8]), RecordFailure> in
                if line.oversized {
                    return .failure(RecordFailure(stage: .read, code: .lineTooLong, message: "line is longer than the reader's limit"))
                }
                return processor.process(line: line.bytes).map { derived in
                    (derived.record.id, summarizeLine(derived, file: file, line: line.number, version: version))
                }
            }
            for (line, result) in zip(batch.lines, results) {
                stats.recordsRead += 1
                switch result {
                case .success(let (id, text)):
                    if let duplicate = duplicates.check(id: id, line: line.number) {
                        stats.recordsSkipped += 1
                        try report.add(duplicate)
                        continue
                    }
                    stats.recordsDone += 1
                    try output.write(text)
                case .failure(let failure):
                    stats.recordsSkipped += 1
                    try report.add(failure.issue(file: file, line: line.number))
                }
            }
            if batch.endOfFile, let fault = batch.fault {
                stats.fileFaults += 1
                try report.add(RecordIssue(file: fault.path, line: nil, byteOffset: fault.byteOffset, stage: .read,
                                           code: fault.code, message: fault.message))
            }
        }
        try output.finish()
        try report.finish()
        stats.seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        return (JobOutcome(statistics: stats, issuesByCode: report.countsByCode), report)
    }

    /// `{"id":…,"roomName":…,"file":…,"line":…,"summaryVersion":…,"summary":{…}}\n`
    static func summarizeLine(_ derived: DerivedRecord, file: String, line: Int, version: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(derived.summaryJSON.count + 200)
        out += Array("{\"id\":".utf8)
        JSONText.appendString(derived.record.id, to: &out)
        out += Array(",\"roomName\":".utf8)
        JSONText.appendString(derived.record.roomName, to: &out)
        out += Array(",\"file\":".utf8)
        JSONText.appendString(file, to: &out)
        out += Array(",\"line\":\(line),\"summaryVersion\":\(version),\"summary\":".utf8)
        out += derived.summaryJSON
        out += Array("}\n".utf8)
        return out
    }
}
