import Foundation
import Logging

/// What `rederive summarize` does, resolved once from flags.
public struct SummarizeConfiguration: Sendable {
    /// Export files to read (already expanded and sorted; see `ExportFiles.resolve`).
    public var files: [String]
    /// Output file (`.jsonl` or `.jsonl.zst`); nil for standard output.
    public var outPath: String?
    /// The derivation to apply.
    public var deriver: SummaryDeriver
    /// Workers, lines per batch, report, error budget and signal handling (no run is recorded).
    public var settings: RunSettings
    /// A folder for a plan-view drawing of every good record (`RoomDrawing`), one SVG file
    /// each named by `RoomDrawing.fileName(forRecordID:)`; nil draws nothing.
    public var svgDirectory: String?

    /// Lines per batch handed to the workers when none is given.
    public static let defaultBatchLines = 256

    /// Creates a configuration; `control` is the error budget (by default
    /// `RunSettings.defaultMaxErrors`, as for every command that reads records).
    public init(
        files: [String], workers: Int = RunSettings.defaultWorkers, outPath: String? = nil,
        reportPath: String? = nil, deriver: SummaryDeriver = SummaryDeriver(),
        batchLines: Int = SummarizeConfiguration.defaultBatchLines, showProgress: Bool = true,
        svgDirectory: String? = nil, control: RunControl = RunControl(maxErrors: RunSettings.defaultMaxErrors)
    ) {
        self.files = files
        self.svgDirectory = svgDirectory
        self.outPath = outPath
        self.deriver = deriver
        self.settings = RunSettings(
            workers: workers, batchSize: batchLines, reportPath: reportPath, control: control,
            arguments: "summarize", showProgress: showProgress)
    }
}

/// `rederive summarize`: streams exports, derives every record's summary on concurrent
/// workers, and writes one JSON object per good record, in input order. No store: the run
/// is not recorded (its report's run id is 0). A signal stops it cleanly: the output file
/// is not put in place (nothing is left at its path), the issue report covers what was read.
///
/// The job runs on the driver's thread; its sink (the writer thread) writes the output,
/// which the driver finishes after the last write.
public final class SummarizeJob: BatchJob {
    /// Runs the job. Record problems go to the report; only I/O faults on the outputs throw.
    public static func run(_ config: SummarizeConfiguration) throws(RederiveError) -> RunReport {
        try BatchRunner.run(try SummarizeJob(config), settings: config.settings)
    }

    let command = "summarize"
    let deriver: SummaryDeriver
    var recording: RunRecording? { nil }
    var progressShowsBytes: Bool { true }
    private let config: SummarizeConfiguration
    private let output: Shared<OutputSink>
    private let pool: WorkerPool<RecordProcessor>
    private var source: ExportBatchSource?
    private var duplicates = DuplicateIDTracker()
    // The `--svg-dir` folder, opened once without following a link at its name.
    private let drawings: OutputFolder?

    private init(_ config: SummarizeConfiguration) throws(RederiveError) {
        self.config = config
        self.deriver = config.deriver
        self.drawings = try config.svgDirectory.map { directory throws(RederiveError) in
            try OutputFolder(directory, what: "--svg-dir")
        }
        self.output = Shared(try OutputSink(path: config.outPath))
        let deriver = config.deriver
        self.pool = WorkerPool(workers: config.settings.workers) { RecordProcessor(deriver: deriver) }
    }

    func start(_ run: RunStart?, log: Logger) -> BatchSink<[UInt8]> {
        source = ExportBatchSource(files: config.files, maxLines: config.settings.batchSize)
        let output = output
        return BatchSink { lines, _ throws(RederiveError) in
            if !lines.isEmpty { try output.withLock { out throws(RederiveError) in try out.write(lines) } }
        }
    }

    func nextBatch() -> ExportBatch? { source?.next() }

    func process(_ batch: ExportBatch, stats: inout RunStatistics, issues: IssueReport) throws(RederiveError) -> [UInt8]
    {
        duplicates.enter(file: batch.file)
        stats.decodedBytes += batch.decodedBytes
        stats.fileBytes += batch.fileBytes
        let file = batch.file
        let version = deriver.version
        let drawing = config.svgDirectory != nil
        let results = pool.map(batch.lines) { processor, line -> Result<Summarized, RecordFailure> in
            if line.oversized { return .failure(.lineTooLong) }
            return processor.process(line: line).map { derived in
                Summarized(
                    id: derived.record.id,
                    text: Self.summarizeLine(derived, file: file, line: line.number, version: version),
                    svg: drawing ? Self.drawing(derived, processor: processor) : nil)
            }
        }
        var out: [UInt8] = []
        for (line, result) in zip(batch.lines, results) {
            stats.recordsRead += 1
            switch result {
            case .success(let summarized):
                if let duplicate = duplicates.check(id: summarized.id, line: line.number) {
                    stats.recordsSkipped += 1
                    try issues.add(duplicate)
                    continue
                }
                stats.recordsDone += 1
                out += summarized.text
                // Written here, after the duplicate check: a repeated id never replaces the
                // first record's drawing.
                if let svg = summarized.svg, let drawings {
                    let name = RoomDrawing.fileName(forRecordID: summarized.id)
                    try OutputFile.write(
                        svg, to: drawings.writePath(name), what: "--svg-dir", shownAs: drawings.shownPath(name))
                }
            case .failure(let failure):
                stats.recordsSkipped += 1
                try issues.add(failure.issue(file: file, line: line.number))
            }
        }
        if batch.endOfFile, let fault = batch.fault {
            stats.fileFaults += 1
            try issues.add(
                RecordIssue(
                    file: fault.path, line: nil, byteOffset: fault.byteOffset, stage: .read,
                    code: fault.code, message: fault.message))
        }
        return out
    }

    func cancel() { source?.cancel() }

    func finish(status: RunStatus, stats: inout RunStatistics) throws(RederiveError) {
        // Standard output has been written as it went; a file is put in place only whole.
        if status == .completed || config.outPath == nil {
            try output.withLock { out throws(RederiveError) in try out.finish() }
        }
    }

    func counts(_ stats: RunStatistics) -> [(String, Int)] { [("summarized", stats.recordsDone)] }

    /// One good record: its id, its output line and its drawing (with `svgDirectory`).
    struct Summarized {
        var id: String
        var text: [UInt8]
        var svg: String?
    }

    /// The record's drawing, from its raw room decoded again (the summary's decode does not
    /// keep the room); nil if it no longer decodes, which a derived record always does.
    static func drawing(_ derived: DerivedRecord, processor: RecordProcessor) -> String? {
        guard case .success(let room) = processor.parser.decodeRoom(derived.record.room) else { return nil }
        return RoomDrawing.svg(
            room, title: derived.record.roomName, subtitle: derived.record.id, deriver: processor.deriver)
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
