import Foundation
import Logging
import Synchronization

/// What `rederive import` does, resolved once from flags (and pipeline files).
public struct ImportConfiguration: Sendable {
    /// Export files to read (expanded and sorted).
    public var files: [String]
    /// The derivation to apply.
    public var deriver: SummaryDeriver
    /// Skip files whose content hash was already imported, or whose reading ended in a file
    /// fault, until their bytes change (nightly runs).
    public var skipImportedFiles: Bool
    /// With `skipImportedFiles`, read files that faulted before again (`--retry-files`).
    public var retryFiles = false
    /// Workers, batch size, report, error budget and run-history details.
    public var settings: RunSettings
    /// Called once the files have been checked against the store, before any is opened for
    /// reading: a test's way to change a file in between (the review's S06 race).
    package var afterCheckingFiles: (@Sendable () -> Void)? = nil

    /// Creates a configuration.
    public init(
        files: [String], deriver: SummaryDeriver = SummaryDeriver(), skipImportedFiles: Bool = false,
        settings: RunSettings = RunSettings(arguments: "import")
    ) {
        self.files = files
        self.deriver = deriver
        self.skipImportedFiles = skipImportedFiles
        self.settings = settings
    }

    /// Creates a configuration from individual settings (defaults from `RunSettings`).
    public init(
        files: [String], workers: Int = RunSettings.defaultWorkers,
        batchSize: Int = RunSettings.defaultBatchSize, reportPath: String? = nil,
        deriver: SummaryDeriver = SummaryDeriver(), control: RunControl = RunControl(),
        skipImportedFiles: Bool = false, arguments: String = "import", pipeline: String? = nil,
        showProgress: Bool = true
    ) {
        self.init(
            files: files, deriver: deriver, skipImportedFiles: skipImportedFiles,
            settings: RunSettings(
                workers: workers, batchSize: batchSize, reportPath: reportPath, control: control,
                arguments: arguments, pipeline: pipeline, showProgress: showProgress))
    }
}

/// `rederive import`: reads exports, upgrades and derives records on concurrent workers,
/// and upserts them with one writer, one transaction per batch. Idempotent: a record
/// already stored with the same raw data and a current summary is left untouched, so a
/// rerun after a crash ends with exactly the store an uninterrupted run makes.
///
/// The job runs on the driver's thread; its sink (the writer thread) writes the batches and
/// adds to the shared totals.
public final class ImportJob: BatchJob {
    /// Runs the import into `store`, whatever its engine.
    package static func run(_ config: ImportConfiguration, store: any ImportWriter) throws(RederiveError) -> RunReport {
        try BatchRunner.run(ImportJob(config, store: store), settings: config.settings)
    }

    let command = "import"
    let deriver: SummaryDeriver
    let recording: RunRecording?
    var progressShowsBytes: Bool { true }
    private let config: ImportConfiguration
    private let store: any ImportWriter
    private let pool: WorkerPool<RecordProcessor>
    private let totals = Shared(ImportBatchCounts())
    private var runID: Int64 = 0
    private var source: ExportBatchSource?
    /// The lines of a read batch not yet handed over (a smaller size was asked for since it was read).
    private var rest: ExportBatch?
    /// The size of the batches handed over (`--batch-size`, then the governor's with `--batch-seconds`).
    private var batchSize: Int
    private var log = Logger(label: "rederive.import")
    private var filesSkipped = 0
    private var checkedHashes: [String: String] = [:]
    private var totalBytes: Int64 = 0
    private var duplicates = DuplicateIDTracker()
    private var currentFile = ""
    private var recordsInFile = 0
    private var bytesInFile: Int64 = 0
    private var faults: [FaultedFile] = []

    private init(_ config: ImportConfiguration, store: any ImportWriter) {
        self.config = config
        self.store = store
        self.deriver = config.deriver
        self.batchSize = config.settings.batchSize
        let key = "import:" + ContentHash.digest(Array(config.files.joined(separator: "\n").utf8)).hex
        self.recording = RunRecording(store: store, resumeKey: key)
        let deriver = config.deriver
        self.pool = WorkerPool(workers: config.settings.workers) { RecordProcessor(deriver: deriver) }
    }

    func start(_ run: RunStart?, log: Logger) throws(RederiveError) -> BatchSink<[ImportItem]> {
        self.log = log
        runID = run?.runID ?? 0
        if let previous = run?.resumedFrom {
            log.notice("continuing unfinished run \(previous): records already stored are left as they are")
        }
        var files: [String] = []
        for file in config.files {
            guard config.skipImportedFiles, let hash = FileHasher.hash(path: file) else {
                files.append(file)
                continue
            }
            if try store.hasImportedFile(contentHash: hash) {
                log.info("already imported (same content), skipped", metadata: ["file": "\(file)"])
                filesSkipped += 1
            } else if !config.retryFiles, let fault = try store.faultedFile(contentHash: hash) {
                // Reported once, when it was read; the same bytes would only fault again.
                let line =
                    "\(file): skipped, the same bytes ended in a file fault in run \(fault.runID) "
                    + "(\(fault.code): \(fault.message)); \(Self.retryHint)"
                log.notice(
                    "\(line)",
                    metadata: ["file": "\(file)", "code": "\(fault.code)"])
                filesSkipped += 1
            } else {
                checkedHashes[file] = hash
                files.append(file)
            }
        }
        config.afterCheckingFiles?()
        totalBytes = files.reduce(Int64(0)) { sum, f in
            sum + ((try? FileManager.default.attributesOfItem(atPath: f)[.size] as? Int64) ?? 0)
        }
        // A file is recorded (imported or faulted) under the bytes that were read: hashed as read
        // when imports are recorded, else only a file that faults (SHA-256's cost on every byte).
        source = ExportBatchSource(
            files: files, maxLines: config.settings.batchSize,
            hashing: config.skipImportedFiles ? .asRead : .afterFault, sized: config.settings.batchSeconds != nil)
        return .importing(
            into: store, runID: runID, deriver: deriver, allowDowngrade: config.settings.allowDowngrade,
            totals: totals)
    }

    /// The next batch: at most `batchSize` lines of what the source read (which read ahead at the
    /// size it had then), the rest kept for the batches after it.
    func nextBatch() -> ExportBatch? {
        guard var batch = rest ?? source?.next() else { return nil }
        rest = nil
        if batch.lines.count > batchSize {
            var tail = batch
            tail.lines = Array(batch.lines[batchSize...])
            batch.lines = Array(batch.lines[..<batchSize])
            // The bytes read are counted with the last piece.
            (batch.decodedBytes, batch.fileBytes) = (0, 0)
            rest = tail
        }
        return batch
    }

    func resize(to size: Int) {
        batchSize = max(1, size)
        source?.resize(maxLines: batchSize)
    }

    func process(
        _ batch: ExportBatch, stats: inout RunStatistics,
        issues: IssueReport
    ) throws(RederiveError) -> [ImportItem] {
        duplicates.enter(file: batch.file)
        if batch.file != currentFile {
            currentFile = batch.file
            recordsInFile = 0
            bytesInFile = 0
        }
        stats.decodedBytes += batch.decodedBytes
        stats.fileBytes += batch.fileBytes
        bytesInFile += batch.fileBytes
        let file = batch.file
        var items = pool.map(batch.lines) { processor, line in processor.importItem(line: line, file: file) }
        for i in items.indices {
            stats.recordsRead += 1
            if case .row(let row) = items[i] {
                if let duplicate = duplicates.check(id: row.record.id, line: row.line) {
                    items[i] = .issue(duplicate)
                } else {
                    recordsInFile += 1
                }
            }
            if case .issue(let issue) = items[i] {
                stats.recordsSkipped += 1
                try issues.add(issue)
            }
        }
        if batch.endOfFile {
            log.debug("file read", metadata: ["file": "\(file)", "records": "\(recordsInFile)"])
            if let checked = checkedHashes[file], let read = batch.contentHash, read != checked {
                log.notice("\(file): changed after it was checked; recorded under the bytes read")
            }
            if let fault = batch.fault {
                // A file nothing could be read from is a file fault like a truncated one: it costs
                // its own records, never the other files' (the budget counts records).
                let kept = recordsInFile == 0 ? "nothing could be read from it" : "the records before it are kept"
                log.warning("\(fault.description); \(kept)", metadata: ["code": "\(fault.code)"])
                stats.fileFaults += 1
                let issue = RecordIssue(
                    file: fault.path, line: nil, byteOffset: fault.byteOffset, stage: .read,
                    code: fault.code, message: fault.message)
                items.append(.issue(issue))
                try issues.add(issue)
                if let hash = batch.contentHash {
                    faults.append(
                        FaultedFile(
                            contentHash: hash, path: file, bytes: bytesInFile, code: fault.code.rawValue,
                            message: fault.message, runID: runID))
                }
            }
            // Only a file read to its end without fault counts as imported.
            items.append(
                .fileDone(
                    path: file, contentHash: batch.fault == nil && config.skipImportedFiles ? batch.contentHash : nil,
                    bytes: bytesInFile, records: recordsInFile))
        }
        return items
    }

    func cancel() { source?.cancel() }

    func finish(status: RunStatus, stats: inout RunStatistics) throws(RederiveError) {
        stats = totals.withLock { $0 }.stated(in: stats)
        // After the batches that reported them are committed (a crash before this only means
        // the file is read, and reported, once more).
        for fault in faults where runID != 0 { try store.recordFaultedFile(fault) }
    }

    private static let retryHint = "replace it, or read it again with --retry-files"

    func progressFraction(_ stats: RunStatistics) -> Double? {
        totalBytes > 0 ? Double(stats.fileBytes) / Double(totalBytes) : nil
    }

    func counts(_ stats: RunStatistics) -> [(String, Int)] {
        let c = totals.withLock { $0 }
        return [
            ("imported", c[.inserted]), ("updated", c[.updated]), ("rederived", c[.rederived]), ("newer", c[.newer]),
            ("filesSkipped", filesSkipped),
        ]
    }

    var newFailures: Int { totals.withLock { $0.newFailures } }
}
