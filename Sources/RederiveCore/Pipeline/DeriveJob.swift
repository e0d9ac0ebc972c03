import Foundation
import Logging
import Synchronization

/// What `rederive derive` does, resolved once from flags (and pipeline files).
public struct DeriveConfiguration: Sendable {
    /// Which records.
    public var selection: DeriveSelection
    /// The derivation to apply.
    public var deriver: SummaryDeriver
    /// Write derived columns even when the result equals what is stored (refreshes
    /// `derived_at`; also what a benchmark of the write path wants).
    public var rewriteUnchanged = false
    /// Workers, batch size, report, error budget and run-history details.
    public var settings: RunSettings

    /// Creates a configuration.
    public init(selection: DeriveSelection = DeriveSelection(), deriver: SummaryDeriver = SummaryDeriver(),
                settings: RunSettings = RunSettings(arguments: "derive")) {
        self.selection = selection
        self.deriver = deriver
        self.settings = settings
    }

    /// Creates a configuration from individual settings (defaults from `RunSettings`).
    public init(selection: DeriveSelection = DeriveSelection(), workers: Int = RunSettings.defaultWorkers,
                batchSize: Int = RunSettings.defaultBatchSize, reportPath: String? = nil,
                deriver: SummaryDeriver = SummaryDeriver(), control: RunControl = RunControl(),
                arguments: String = "derive", pipeline: String? = nil, showProgress: Bool = true) {
        self.init(selection: selection, deriver: deriver,
                  settings: RunSettings(workers: workers, batchSize: batchSize, reportPath: reportPath, control: control,
                                        arguments: arguments, pipeline: pipeline, showProgress: showProgress))
    }
}

/// `rederive derive`: re-derives stored records in keyset batches (`seq > last ORDER BY seq
/// LIMIT n`, bounded above by the largest key when the run started), deriving on concurrent
/// workers while the next batch is read, one writer committing each batch with the run's
/// checkpoint. A rerun of an unfinished run continues from that checkpoint.
///
/// Its dry run (`preview`) is the same job with another write: the results go to a
/// `ChangeCollector` instead of the store, and no run is recorded.
// @unchecked: `start`, `nextBatch` and `process` run on the driver's thread only; `write`
// (the writer thread) reads immutable state and the `Mutex`-guarded count.
public final class DeriveJob: BatchJob, @unchecked Sendable {
    /// Runs the derivation over `store`.
    public static func run(_ config: DeriveConfiguration, store: Store) throws(RederiveError) -> RunReport {
        try config.selection.validate()
        return try BatchRunner.run(DeriveJob(config, store: store, mode: .apply), settings: config.settings)
    }

    /// A dry run of `run(_:store:)`: selects, fetches and derives exactly as a derive would,
    /// but writes nothing to the store — no summaries, no run row, no failure ledger — and
    /// returns what would change. Open `store` read-only to be sure the file stays
    /// byte-identical. The error budget and signals are not consulted: there is nothing to
    /// commit, so a preview always examines the whole selection.
    /// `config.settings.reportPath`, when set, still receives the per-record issue report.
    /// `topCount` is how many of the largest changes the report lists.
    public static func preview(_ config: DeriveConfiguration, store: Store,
                               topCount: Int = 20) throws(RederiveError) -> ChangeReport {
        try config.selection.validate()
        let deriver = config.deriver
        let collector = ChangeCollector(summaryVersion: deriver.version, fingerprint: deriver.fingerprint,
                                        topCount: topCount)
        var settings = config.settings
        settings.control = RunControl(honoursSignals: false)  // nothing to commit: examine the whole selection
        let run = try BatchRunner.run(DeriveJob(config, store: store, mode: .preview(collector)), settings: settings)
        var report = collector.report()
        report.store = store.path
        report.selection = config.selection.description
        report.seconds = run.statistics.seconds
        return report
    }

    /// Where a batch's results go.
    enum Mode {
        /// Into the store, with the run's checkpoint.
        case apply
        /// Into a change report; the store is only read.
        case preview(ChangeCollector)
    }

    /// One batch's results and the key it ends at.
    struct Results: Sendable {
        var writes: [Store.DeriveWrite]
        var lastSeq: Int64
    }

    let deriver: SummaryDeriver
    let recording: RunRecording?
    var command: String { if case .preview = mode { "derive --dry-run" } else { "derive" } }
    var issuesOutOfOrder: Bool { true }
    let config: DeriveConfiguration
    let store: Store
    private let mode: Mode
    private let pool: WorkerPool<RecordProcessor>
    private let failuresAdded = Mutex(0)
    private var runID: Int64 = 0
    private var fetcher: Prefetcher<Result<[StoredRoom], RederiveError>>?
    private var total = 0

    private init(_ config: DeriveConfiguration, store: Store, mode: Mode) {
        self.config = config
        self.store = store
        self.mode = mode
        self.deriver = config.deriver
        if case .apply = mode {
            let key = "derive:\(config.selection.description):\(config.deriver.fingerprint)"
            recording = RunRecording(store: store, resumeKey: key)
        } else {
            recording = nil
        }
        let deriver = config.deriver
        pool = WorkerPool(workers: config.settings.workers) { RecordProcessor(deriver: deriver) }
    }

    func start(_ run: RunStart?, log: Logger) throws(RederiveError) {
        // A preview is bounded like a fresh run: rows added while it reads are not counted.
        let upper: Int64
        if let bound = run?.upperBoundSeq { upper = bound } else { upper = try store.maxSeq() }
        let first = run?.checkpointSeq ?? 0
        if let run {
            runID = run.runID
            try store.setUpperBound(runID: run.runID, upperBoundSeq: upper)
            if let previous = run.resumedFrom {
                log.notice("continuing unfinished run \(previous) after record key \(first) (up to \(upper))")
            }
        }
        // The count is a scan of its own and only feeds the progress line's ETA: skip it when
        // there is no terminal to show one.
        if config.settings.showProgress && isatty(2) == 1 {
            total = try store.countSelected(config.selection, deriver: deriver,
                                            allowDowngrade: config.settings.allowDowngrade, after: first, upTo: upper)
        }
        log.debug("selected", metadata: ["after": "\(first)", "upTo": "\(upper)",
                                         "selection": "\(config.selection.description)"])
        let (store, selection, deriver, limit) = (store, config.selection, deriver, config.settings.batchSize)
        let allowDowngrade = config.settings.allowDowngrade
        fetcher = Prefetcher(capacity: 1) { emit in
            var cursor = first
            while true {
                do throws(RederiveError) {
                    let batch = try store.fetchRooms(selection, deriver: deriver, allowDowngrade: allowDowngrade,
                                                     after: cursor, upTo: upper, limit: limit)
                    guard let last = batch.last else { return }
                    cursor = last.seq
                    if !emit(.success(batch)) { return }
                } catch {
                    _ = emit(.failure(error))
                    return
                }
            }
        }
    }

    func nextBatch() throws(RederiveError) -> [StoredRoom]? { try fetcher?.next()?.get() }

    func process(_ batch: [StoredRoom], stats: inout RunStatistics,
                 issues: IssueReport) throws(RederiveError) -> Results {
        let results = pool.map(batch) { processor, room in processor.derive(room: room.skeleton, id: room.id) }
        var writes: [Store.DeriveWrite] = []
        writes.reserveCapacity(batch.count)
        for (room, result) in zip(batch, results) {
            stats.recordsRead += 1
            stats.decodedBytes += Int64(room.skeleton.count)
            // Selected by --all, --ids or --retry-failed: a newer summary is still left alone.
            if !config.settings.allowDowngrade, let stored = room.storedVersion, stored > deriver.version {
                stats.recordsNewer += 1
                continue
            }
            switch result {
            case .success(let (summary, json)):
                if !config.rewriteUnchanged, room.storedVersion == deriver.version,
                   room.storedFingerprint == deriver.fingerprint, let stored = room.storedJSON,
                   stored.utf8.elementsEqual(json) {
                    stats.recordsUnchanged += 1
                    writes.append(.unchanged(id: room.id))
                } else {
                    stats.recordsDone += 1
                    writes.append(.summary(seq: room.seq, id: room.id, summary: summary, json: json))
                }
                if case .preview(let collector) = mode {
                    collector.add(id: room.id, roomName: room.roomName, storedJSON: room.storedJSON,
                                  storedVersion: room.storedVersion, storedFingerprint: room.storedFingerprint,
                                  newSummary: summary, newJSON: json)
                }
            case .failure(let failure):
                stats.recordsSkipped += 1
                let issue = failure.issue(file: room.sourceFile, line: room.sourceLine)
                try issues.add(issue)
                writes.append(.failure(issue))
                if case .preview(let collector) = mode {
                    collector.addFailure(id: room.id, roomName: room.roomName, stage: failure.stage.rawValue,
                                         code: failure.code.rawValue, message: failure.message)
                }
            }
        }
        return Results(writes: writes, lastSeq: batch.last?.seq ?? 0)
    }

    func write(_ results: Results, progress: RunStatistics) throws(RederiveError) {
        guard case .apply = mode else { return }
        let added = try store.writeDeriveBatch(results.writes, runID: runID, deriver: deriver,
                                               checkpointSeq: results.lastSeq, progress: progress)
        failuresAdded.withLock { $0 += added }
    }

    func cancel() { fetcher?.cancel() }

    func finish(status: RunStatus, stats: inout RunStatistics) {}

    func progressFraction(_ stats: RunStatistics) -> Double? {
        total > 0 ? Double(stats.recordsRead) / Double(total) : nil
    }

    func counts(_ stats: RunStatistics) -> [(String, Int)] {
        [("derived", stats.recordsDone), ("newer", stats.recordsNewer)]
    }

    var newFailures: Int { failuresAdded.withLock { $0 } }
}
