import Foundation
import Logging
import Synchronization

/// What `rederive copy-store` does, beyond the two stores it is given.
package struct CopyStoreConfiguration: Sendable {
    /// The derivation the copied records' summaries are derived with.
    package var deriver: SummaryDeriver
    /// Workers, batch size (records per page and per transaction), report, error budget and
    /// run-history details.
    package var settings: RunSettings

    /// Creates a configuration.
    package init(
        deriver: SummaryDeriver = SummaryDeriver(), settings: RunSettings = RunSettings(arguments: "copy-store")
    ) {
        self.deriver = deriver
        self.settings = settings
    }
}

/// `rederive copy-store --from SRC --to DST`: brings every record of one store into another,
/// whatever their engines (SQLite to PostgreSQL, typically). It reads each record's metadata
/// and raw room as stored, in key order up to the highest key the source held when the copy
/// started (`copyBatches`: keyset pages, or on PostgreSQL one `COPY … TO STDOUT`), derives
/// its summary anew on the workers (as import does) and writes it with import's batch
/// write, so the destination holds what importing the same exports
/// with this build would give: the same records, byte-identical raw rooms, the same source
/// file and line. The copy is a run of the destination; a rerun continues an unfinished
/// one, and records already copied come out unchanged. The run history, the summary history,
/// the failure ledger with its acknowledgements and the faulted files come along
/// (`HistoryCopy`). The source is only read.
///
/// The job runs on the driver's thread; its sink (the writer thread) writes the batches and
/// adds to the shared totals.
package final class CopyStoreJob: BatchJob {
    /// Copies `source` into `destination`.
    package static func run(
        _ config: CopyStoreConfiguration, from source: any CopySource & HistoryCopying,
        to destination: any ImportWriter & HistoryCopying
    ) throws(RederiveError) -> RunReport {
        // Keyed by the source's identity: a rerun from the same store continues the copy.
        let sourceID = try source.storeID()
        if !sourceID.isEmpty, sourceID == (try destination.storeID()) {
            throw .usage(
                "\(destination.path): is the store to copy (\(source.path)) or a file copy of it (the same store id); "
                    + "give --to another store")
        }
        let key = "copy-store:" + (sourceID.isEmpty ? source.path : sourceID)
        // The run history first, so on a fresh destination every run keeps its id and the
        // copy's own run comes after them.
        let runsBefore = try HistoryCopy.rowCounts(in: destination, sourceID: sourceID)[0]
        let runs = try HistoryCopy.copyRuns(from: source, to: destination, sourceID: sourceID)
        let job = CopyStoreJob(config, source: source, destination: destination, resumeKey: key)
        let report = try BatchRunner.run(job, settings: config.settings)
        guard report.exitStatus.isSuccess else { return report }
        // Then, with every record there, what runs replaced and the failure ledger.
        let before = try HistoryCopy.rowCounts(in: destination, sourceID: sourceID)
        let copied = try HistoryCopy.copyHistory(
            from: source, to: destination, runs: runs, copyRun: report.runID)
        let acks = try HistoryCopy.copyAcknowledgements(
            from: source, to: destination, runs: runs, copyRun: report.runID)
        let after = try HistoryCopy.rowCounts(in: destination, sourceID: sourceID)
        // What this copy added, against what it read: a rerun finds it all there already.
        let read = [runs.count, copied.history, copied.failures, acks.acknowledgements, acks.faultedFiles]
        let added = [after[0] - runsBefore] + (1..<after.count).map { after[$0] - before[$0] }
        let names = ["runs", "replaced summaries", "failure ledger entries", "acknowledgements", "faulted files"]
        let parts = zip(names, zip(added, read)).map { name, counts in
            counts.0 >= counts.1 ? "\(counts.1) \(name)" : "\(counts.0) of \(counts.1) \(name)"
        }
        let what = parts.joined(separator: ", ")
        let line =
            added.allSatisfy { $0 == 0 } && read.contains { $0 > 0 }
            ? "history already copied by an earlier copy-store, nothing added: "
                + zip(names, read).map { "\($1) \($0)" }.joined(separator: ", ")
            : "history copied: \(what)"
        Logger(label: "rederive.copy-store").info(
            "\(line)",
            metadata: [
                "runs": "\(runs.count)", "history": "\(copied.history)", "failures": "\(copied.failures)",
                "acknowledgements": "\(acks.acknowledgements)", "faultedFiles": "\(acks.faultedFiles)",
            ])
        return report
    }

    let command = "copy-store"
    let deriver: SummaryDeriver
    let recording: RunRecording?
    private let config: CopyStoreConfiguration
    private let source: any CopySource & HistoryCopying
    private let destination: any ImportWriter & HistoryCopying
    private let pool: WorkerPool<RecordProcessor>
    private let totals = Shared(ImportBatchCounts())
    private var runID: Int64 = 0
    private var total = 0
    private var fetcher: Prefetcher<Result<[CopyRow], RederiveError>>?

    private init(
        _ config: CopyStoreConfiguration, source: any CopySource & HistoryCopying,
        destination: any ImportWriter & HistoryCopying, resumeKey: String
    ) {
        self.config = config
        self.source = source
        self.destination = destination
        self.deriver = config.deriver
        recording = RunRecording(store: destination, resumeKey: resumeKey)
        let deriver = config.deriver
        pool = WorkerPool(workers: config.settings.workers) { RecordProcessor(deriver: deriver) }
    }

    func start(_ run: RunStart?, log: Logger) throws(RederiveError) -> BatchSink<[ImportItem]> {
        runID = run?.runID ?? 0
        // The source's records when the copy started: ones added since wait for the next copy.
        let upper: Int64
        if let bound = run?.upperBoundSeq { upper = bound } else { upper = try source.maxSeq() }
        if let run {
            try destination.setUpperBound(runID: run.runID, upperBoundSeq: upper)
            if let previous = run.resumedFrom {
                log.notice("continuing unfinished run \(previous): records already copied are left as they are")
            }
        }
        // A count is a scan of its own and only feeds the progress line's ETA.
        if config.settings.showProgress && isatty(2) == 1 { total = try source.countRecords(upTo: upper) }
        log.info(
            "copying \(source.path) to \(destination.path)", metadata: ["upTo": "\(upper)", "run": "\(runID)"])
        let batches = try source.copyBatches(upTo: upper, limit: config.settings.batchSize)
        fetcher = Prefetcher(capacity: 1) { emit in
            // Read to its end, stopped or failed: the read is released.
            defer { batches.close() }
            while true {
                do throws(RederiveError) {
                    guard let batch = try batches.next() else { return }
                    if !emit(.success(batch)) { return }
                } catch {
                    _ = emit(.failure(error))
                    return
                }
            }
        }
        return .importing(
            into: destination, runID: runID, deriver: deriver, allowDowngrade: config.settings.allowDowngrade,
            totals: totals)
    }

    func nextBatch() throws(RederiveError) -> [CopyRow]? { try fetcher?.next()?.get() }

    func process(
        _ rows: [CopyRow], stats: inout RunStatistics, issues: IssueReport
    ) throws(RederiveError)
        -> [ImportItem]
    {
        let items = pool.map(rows) { processor, row in processor.copyItem(row) }
        for (row, item) in zip(rows, items) {
            stats.recordsRead += 1
            stats.decodedBytes += Int64(row.parts.skeleton.count + row.parts.coreModel.count)
            if case .issue(let issue) = item {
                stats.recordsSkipped += 1
                try issues.add(issue)
            }
        }
        return items
    }

    func cancel() { fetcher?.cancel() }

    func finish(status: RunStatus, stats: inout RunStatistics) {
        stats = totals.withLock { $0 }.stated(in: stats)
    }

    func progressFraction(_ stats: RunStatistics) -> Double? {
        total > 0 ? min(1, Double(stats.recordsRead) / Double(total)) : nil
    }

    func counts(_ stats: RunStatistics) -> [(String, Int)] {
        let c = totals.withLock { $0 }
        return [("copied", c.written), ("newer", c[.newer])]
    }

    var newFailures: Int { totals.withLock { $0.newFailures } }
}
