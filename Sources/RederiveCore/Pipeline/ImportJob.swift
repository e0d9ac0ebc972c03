import Foundation
import Logging

/// What `rederive import` does, resolved once from flags (and pipeline files).
public struct ImportConfiguration: Sendable {
    /// Export files to read (expanded and sorted).
    public var files: [String]
    /// Concurrent workers.
    public var workers: Int
    /// Records per batch: one transaction each.
    public var batchSize: Int
    /// Error report path (JSON Lines), if any.
    public var reportPath: String?
    /// The derivation to apply.
    public var deriver: SummaryDeriver
    /// Error budget.
    public var control: RunControl
    /// Skip files whose content hash was already imported (nightly runs).
    public var skipImportedFiles: Bool
    /// The command line, for the run history.
    public var arguments: String
    /// The pipeline file that started this run, if any.
    public var pipeline: String?
    /// Show a progress line (only honoured when stderr is a terminal).
    public var showProgress: Bool

    /// Creates a configuration.
    public init(files: [String], workers: Int = ProcessInfo.processInfo.activeProcessorCount, batchSize: Int = 500,
                reportPath: String? = nil, deriver: SummaryDeriver = SummaryDeriver(), control: RunControl = RunControl(),
                skipImportedFiles: Bool = false, arguments: String = "import", pipeline: String? = nil,
                showProgress: Bool = true) {
        self.files = files
        self.workers = max(1, workers)
        self.batchSize = max(1, batchSize)
        self.reportPath = reportPath
        self.deriver = deriver
        self.control = control
        self.skipImportedFiles = skipImportedFiles
        self.arguments = arguments
        self.pipeline = pipeline
        self.showProgress = showProgress
    }
}

/// `rederive import`: reads exports, upgrades and derives records on concurrent workers,
/// and upserts them with one writer, one transaction per batch. Idempotent: a record
/// already stored with the same raw data and a current summary is left untouched, so a
/// rerun after a crash ends with exactly the store an uninterrupted run makes.
public enum ImportJob {
    /// Runs the import into `store`.
    public static func run(_ config: ImportConfiguration, store: Store) throws(RederiveError) -> RunReport {
        let start = DispatchTime.now()
        let report = try IssueReport(path: config.reportPath)
        let run = try store.beginRun(command: "import", pipeline: config.pipeline, arguments: config.arguments,
                                     resumeKey: "import:" + ContentHash.digest(Array(config.files.joined(separator: "\n").utf8)).hex,
                                     deriver: config.deriver)
        let log = Logger(label: "rederive.import")
        if let previous = run.resumedFrom {
            log.notice("continuing unfinished run \(previous): records already stored are left as they are")
        }
        var stats = RunStatistics()
        var skippedFiles = 0
        var fileHashes: [String: String] = [:]
        var files: [String] = []
        for file in config.files {
            guard config.skipImportedFiles, let hash = FileHasher.hash(path: file) else {
                files.append(file)
                continue
            }
            if try store.hasImportedFile(contentHash: hash) {
                log.info("already imported (same content), skipped", metadata: ["file": "\(file)"])
                skippedFiles += 1
            } else {
                fileHashes[file] = hash
                files.append(file)
            }
        }
        let totalBytes = files.reduce(Int64(0)) { sum, f in
            sum + ((try? FileManager.default.attributesOfItem(atPath: f)[.size] as? Int64) ?? 0)
        }

        let totals = WriterTotals()
        let deriver = config.deriver
        let runID = run.runID
        let writer = BackgroundWriter<([ImportItem], RunStatistics)> { job throws(RederiveError) in
            let counts = try store.writeImportBatch(job.0, runID: runID, deriver: deriver,
                                                    progress: totals.merged(into: job.1))
            totals.add(counts)
        }
        let pool = WorkerPool(workers: config.workers) { RecordProcessor(deriver: config.deriver) }
        let source = ExportBatchSource(files: files, maxLines: config.batchSize)
        let progress = ProgressLine(label: "import", enabled: config.showProgress && isatty(2) == 1)
        var duplicates = DuplicateIDTracker()
        var recordsInFile = 0
        var bytesInFile: Int64 = 0
        var currentFile = ""
        var status = RunStatus.completed
        var stopReason: String?

        while let batch = source.next() {
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
                    try report.add(issue)
                }
            }
            if batch.endOfFile {
                log.debug("file read", metadata: ["file": "\(file)", "records": "\(recordsInFile)"])
                if let fault = batch.fault {
                    log.warning("\(fault.description); the records before it are kept", metadata: ["code": "\(fault.code)"])
                    stats.fileFaults += 1
                    let issue = RecordIssue(file: fault.path, line: nil, byteOffset: fault.byteOffset, stage: .read,
                                            code: fault.code, message: fault.message)
                    items.append(.issue(issue))
                    try report.add(issue)
                }
                // Only a file read to its end without fault counts as imported.
                items.append(.fileDone(path: file, contentHash: batch.fault == nil ? fileHashes[file] : nil,
                                       bytes: bytesInFile, records: recordsInFile))
            }
            writer.submit((items, stats))
            if writer.failed { break }
            progress.update(records: stats.recordsRead, bytes: stats.decodedBytes,
                            fraction: totalBytes > 0 ? Double(stats.fileBytes) / Double(totalBytes) : nil,
                            skipped: stats.recordsSkipped + stats.fileFaults)
            if let stop = config.control.stopRequest(skipped: stats.recordsSkipped + stats.fileFaults, read: stats.recordsRead) {
                (status, stopReason) = (stop.status, stop.reason)
                break
            }
        }
        source.cancel()  // stops the reader thread if the loop ended early (no-op at the end)
        progress.finish()
        do {
            try writer.finish()
        } catch {
            try? store.finishRun(runID, status: .failed, exitStatus: 2, statistics: stats)
            throw error
        }
        try report.finish()
        stats = totals.merged(into: stats)
        stats.seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        let exit = RunControl.exitStatus(for: status, skipped: stats.recordsSkipped + stats.fileFaults)
        try store.finishRun(runID, status: status, exitStatus: exit, statistics: stats)
        let c = totals.snapshot
        return RunReport(
            runID: runID, command: "import", status: status, exitStatus: exit, statistics: stats,
            counts: [("imported", c.inserted), ("updated", c.updated), ("rederived", c.rederived),
                     ("filesSkipped", skippedFiles)],
            issuesByCode: report.countsByCode, newFailures: c.newFailures, summaryVersion: config.deriver.version,
            fingerprint: config.deriver.fingerprint, resumedFrom: run.resumedFrom, stopReason: stopReason)
    }
}

/// Counts the background writer accumulates, read by the main thread.
final class WriterTotals: @unchecked Sendable {
    private let lock = NSLock()
    private var counts = ImportBatchCounts()

    func add(_ c: ImportBatchCounts) {
        lock.withLock {
            counts.inserted += c.inserted
            counts.updated += c.updated
            counts.rederived += c.rederived
            counts.unchanged += c.unchanged
            counts.newFailures += c.newFailures
        }
    }

    var snapshot: ImportBatchCounts { lock.withLock { counts } }

    /// `stats` with done/unchanged from the writer's counts.
    func merged(into stats: RunStatistics) -> RunStatistics {
        let c = snapshot
        var s = stats
        s.recordsDone = c.inserted + c.updated + c.rederived
        s.recordsUnchanged = c.unchanged
        return s
    }
}
