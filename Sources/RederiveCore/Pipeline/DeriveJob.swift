import Foundation
import Logging

/// What `rederive derive` does, resolved once from flags (and pipeline files).
public struct DeriveConfiguration: Sendable {
    /// Which records.
    public var selection: DeriveSelection
    /// Concurrent workers.
    public var workers: Int
    /// Rows per fetch and per transaction.
    public var batchSize: Int
    /// Error report path (JSON Lines), if any.
    public var reportPath: String?
    /// The derivation to apply.
    public var deriver: SummaryDeriver
    /// Error budget.
    public var control: RunControl
    /// The command line, for the run history.
    public var arguments: String
    /// The pipeline file that started this run, if any.
    public var pipeline: String?
    /// Show a progress line (only honoured when stderr is a terminal).
    public var showProgress: Bool
    /// Write derived columns even when the result equals what is stored (refreshes
    /// `derived_at`; also what a benchmark of the write path wants).
    public var rewriteUnchanged = false

    /// Creates a configuration.
    public init(selection: DeriveSelection = DeriveSelection(), workers: Int = ProcessInfo.processInfo.activeProcessorCount,
                batchSize: Int = 500, reportPath: String? = nil, deriver: SummaryDeriver = SummaryDeriver(),
                control: RunControl = RunControl(), arguments: String = "derive", pipeline: String? = nil,
                showProgress: Bool = true) {
        self.selection = selection
        self.workers = max(1, workers)
        self.batchSize = max(1, batchSize)
        self.reportPath = reportPath
        self.deriver = deriver
        self.control = control
        self.arguments = arguments
        self.pipeline = pipeline
        self.showProgress = showProgress
    }
}

/// `rederive derive`: re-derives stored records in keyset batches (`seq > last ORDER BY seq
/// LIMIT n`, bounded above by the largest key when the run started), deriving on concurrent
/// workers while the next batch is read, one writer committing each batch with the run's
/// checkpoint. A rerun of an unfinished run continues from that checkpoint.
public enum DeriveJob {
    /// Runs the derivation over `store`.
    public static func run(_ config: DeriveConfiguration, store: Store) throws(RederiveError) -> RunReport {
        let start = DispatchTime.now()
        let deriver = config.deriver
        try config.selection.validate()
        let report = try IssueReport(path: config.reportPath, buffered: true)
        let run = try store.beginRun(command: "derive", pipeline: config.pipeline, arguments: config.arguments,
                                     resumeKey: "derive:\(config.selection.description):\(deriver.fingerprint)",
                                     deriver: deriver)
        let runID = run.runID
        let upper: Int64
        if let bound = run.upperBoundSeq { upper = bound } else { upper = try store.maxSeq() }
        try store.setUpperBound(runID: runID, upperBoundSeq: upper)
        let first = run.checkpointSeq ?? 0
        // The count is a scan of its own and only feeds the progress line's ETA: skip it when
        // there is no terminal to show one.
        let showProgress = config.showProgress && isatty(2) == 1
        let total = showProgress ? try store.countSelected(config.selection, deriver: deriver, after: first, upTo: upper) : 0
        let log = Logger(label: "rederive.derive")
        if let previous = run.resumedFrom {
            log.notice("continuing unfinished run \(previous) after record key \(first) (up to \(upper))")
        }
        log.debug("selected", metadata: ["after": "\(first)", "upTo": "\(upper)", "selection": "\(config.selection.description)"])

        let fetched = RoomFetcher(store: store, selection: config.selection, deriver: deriver, after: first,
                                  upTo: upper, batchSize: config.batchSize)
        let newFailures = LockedCounter()
        let writer = BackgroundWriter<([Store.DeriveWrite], Int64, RunStatistics)> { job throws(RederiveError) in
            let n = try store.writeDeriveBatch(job.0, runID: runID, deriver: deriver, checkpointSeq: job.1, progress: job.2)
            newFailures.add(n)
        }
        let pool = WorkerPool(workers: config.workers) { RecordProcessor(deriver: deriver) }
        let progress = ProgressLine(label: "derive", enabled: showProgress)
        var stats = RunStatistics()
        var status = RunStatus.completed
        var stopReason: String?

        while let batch = try fetched.next() {
            let results = pool.map(batch) { processor, room in processor.derive(room: room.skeleton, id: room.id) }
            var writes: [Store.DeriveWrite] = []
            writes.reserveCapacity(batch.count)
            for (room, result) in zip(batch, results) {
                stats.recordsRead += 1
                stats.decodedBytes += Int64(room.skeleton.count)
                switch result {
                case .success(let (summary, json)):
                    if !config.rewriteUnchanged, room.storedVersion == deriver.version, room.storedFingerprint == deriver.fingerprint,
                       let stored = room.storedJSON, stored.utf8.elementsEqual(json) {
                        stats.recordsUnchanged += 1
                        writes.append(.unchanged(id: room.id))
                    } else {
                        stats.recordsDone += 1
                        writes.append(.summary(seq: room.seq, id: room.id, summary: summary, json: json))
                    }
                case .failure(let failure):
                    stats.recordsSkipped += 1
                    let issue = failure.issue(file: room.sourceFile, line: room.sourceLine)
                    try report.add(issue)
                    writes.append(.failure(issue))
                }
            }
            writer.submit((writes, batch.last!.seq, stats))
            log.debug("batch", metadata: ["through": "\(batch.last!.seq)", "records": "\(batch.count)"])
            if writer.failed { break }
            progress.update(records: stats.recordsRead, bytes: 0,
                            fraction: total > 0 ? Double(stats.recordsRead) / Double(total) : nil,
                            skipped: stats.recordsSkipped)
            if let stop = config.control.stopRequest(skipped: stats.recordsSkipped, read: stats.recordsRead) {
                (status, stopReason) = (stop.status, stop.reason)
                break
            }
        }
        fetched.cancel()
        progress.finish()
        do {
            try writer.finish()
        } catch {
            try? store.finishRun(runID, status: .failed, exitStatus: 2, statistics: stats)
            throw error
        }
        try report.finish()
        stats.seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        let exit = RunControl.exitStatus(for: status, skipped: stats.recordsSkipped)
        try store.finishRun(runID, status: status, exitStatus: exit, statistics: stats)
        return RunReport(
            runID: runID, command: "derive", status: status, exitStatus: exit, statistics: stats,
            counts: [("derived", stats.recordsDone)], issuesByCode: report.countsByCode, newFailures: newFailures.value,
            summaryVersion: deriver.version, fingerprint: deriver.fingerprint, resumedFrom: run.resumedFrom,
            stopReason: stopReason)
    }
}

/// Reads keyset batches on a background thread, one batch ahead of the workers.
final class RoomFetcher: @unchecked Sendable {
    private let queue = BoundedQueue<Result<[StoredRoom], RederiveError>>(capacity: 1)
    private let lock = NSLock()
    private var stopped = false

    init(store: Store, selection: DeriveSelection, deriver: SummaryDeriver, after: Int64, upTo: Int64, batchSize: Int) {
        let thread = Thread { [self] in
            var cursor = after
            defer { queue.close() }
            while !lock.withLock({ stopped }) {
                do throws(RederiveError) {
                    let batch = try store.fetchRooms(selection, deriver: deriver, after: cursor, upTo: upTo, limit: batchSize)
                    if batch.isEmpty { return }
                    cursor = batch.last!.seq
                    queue.push(.success(batch))
                } catch {
                    queue.push(.failure(error))
                    return
                }
            }
        }
        thread.start()
    }

    /// The next batch, nil when done.
    func next() throws(RederiveError) -> [StoredRoom]? {
        switch queue.pop() {
        case .none: return nil
        case .success(let batch): return batch
        case .failure(let error): throw error
        }
    }

    /// Stops fetching.
    func cancel() {
        lock.withLock { stopped = true }
        while queue.pop() != nil {}
    }
}

/// A thread-safe counter.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ n: Int) { lock.withLock { count += n } }
    var value: Int { lock.withLock { count } }
}
