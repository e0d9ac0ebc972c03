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
    /// Refuse (before writing anything) when more existing summaries would be rewritten.
    public var maxChanges: ChangeLimit?
    /// Visit records up to this key only (a plan's high-water mark); nil: the last record
    /// present when the run starts.
    public var upperBound: Int64?
    /// Workers, batch size, report, error budget and run-history details.
    public var settings: RunSettings
    /// A plan's apply: the run-history key it is recorded under (continued as the same run).
    package var planRunKey: String?
    /// A plan's verification: what its earlier runs wrote counts as the writes they were.
    package var planProgress: PlanProgress?

    /// Creates a configuration.
    public init(
        selection: DeriveSelection = DeriveSelection(), deriver: SummaryDeriver = SummaryDeriver(),
        settings: RunSettings = RunSettings(arguments: "derive")
    ) {
        self.selection = selection
        self.deriver = deriver
        self.settings = settings
    }

    /// Creates a configuration from individual settings (defaults from `RunSettings`).
    public init(
        selection: DeriveSelection = DeriveSelection(), workers: Int = RunSettings.defaultWorkers,
        batchSize: Int = RunSettings.defaultBatchSize, reportPath: String? = nil,
        deriver: SummaryDeriver = SummaryDeriver(), control: RunControl = RunControl(),
        arguments: String = "derive", pipeline: String? = nil, showProgress: Bool = true
    ) {
        self.init(
            selection: selection, deriver: deriver,
            settings: RunSettings(
                workers: workers, batchSize: batchSize, reportPath: reportPath, control: control,
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
    /// Runs the derivation over `store`, whatever its engine. On an engine with range claims
    /// this process claims ranges next to any other process deriving the same selection.
    package static func run(
        _ config: DeriveConfiguration, store: any DeriveSource & DeriveWriter
    ) throws(RederiveError) -> RunReport {
        try config.selection.validate()
        if let limit = config.maxChanges {
            // Counted by a dry pass first: the guard must hold before the first write.
            let tally = try self.tally(config, store: store)
            guard limit.allows(rewrites: tally.rewrites, of: tally.examined) else {
                throw .refused(
                    "\(tally.rewritesText), more than "
                        + "max-changes \(limit) allows; nothing was written. A calculation change is a backfill: "
                        + "preview it and apply the plan (`rederive derive --all --dry-run --plan FILE`, then "
                        + "`rederive derive --apply-plan FILE`; `make backfill DB=…`)")
            }
        }
        let report = try BatchRunner.run(DeriveJob(config, store: store, mode: .apply), settings: config.settings)
        try RevertJob.logUndo(of: report, store: store)
        return report
    }

    /// Counts what `run` would write on `store`, whatever its engine, writing nothing.
    package static func tally(
        _ config: DeriveConfiguration, store: any DeriveSource & DeriveWriter
    ) throws(RederiveError) -> ChangeTally {
        try count(config, store: store).tally
    }

    /// A dry pass that only counts (with a plan's verification when `config` has one).
    private static func count(
        _ config: DeriveConfiguration, store: any DeriveSource & DeriveWriter
    ) throws(RederiveError) -> TallyBox {
        try config.selection.validate()
        var settings = config.settings
        settings.control = RunControl(honoursSignals: false)
        settings.reportPath = nil
        settings.showProgress = false
        let counter = TallyBox()
        _ = try BatchRunner.run(DeriveJob(config, store: store, mode: .preview(nil, counter)), settings: settings)
        return counter
    }

    /// Applies `plan` exactly on `store`, whatever its engine (see `apply(_:config:store:)`).
    package static func apply(
        _ plan: DerivePlan, config: DeriveConfiguration,
        store: any DeriveSource & DeriveWriter
    ) throws(RederiveError) -> RunReport {
        let log = Logger(label: "rederive.derive")
        let id = try store.storeID()
        guard plan.store.id == id else {
            throw .refused(
                "the plan was made for another store (id \(plan.store.id) at \(plan.store.path)); "
                    + "\(store.path) is \(id). Nothing was written")
        }
        let deriver = config.deriver
        guard plan.summaryVersion == deriver.version, plan.fingerprint == deriver.fingerprint else {
            throw .refused(PlanProgress.wrongBuild(plan, deriver: deriver))
        }
        var config = config
        config.selection = plan.deriveSelection
        config.settings.allowDowngrade = plan.allowDowngrade
        config.upperBound = plan.store.highWaterMark
        config.maxChanges = nil
        let runs = try store.runs(resumeKey: plan.runKey)
        let state = PlanProgress.state(of: runs)
        if case .applied(let run) = state { return alreadyApplied(by: run, deriver: deriver, store: store) }
        let progress = PlanProgress(runs: runs, madeAfterRun: plan.store.lastRunID)
        var check = config
        check.planProgress = progress
        check.selection.writtenAfterRun = progress.madeAfterRun
        let now = try count(check, store: store)
        guard PlanProgress.matches(now.tally, plan) else {
            throw .refused(
                PlanProgress.refusal(
                    now.tally, plan, outside: now.outside, outsideCount: now.outsideCount, resumed: !runs.isEmpty))
        }
        if case .unfinished(let earlier) = state {
            let text =
                "finishing this plan's apply (run \(earlier.map(String.init).joined(separator: ", ")) stopped before "
                + "the end): \(now.done) of \(plan.counts.rewrites + plan.counts.additions) planned writes are done"
            log.notice("\(text)")
        }
        if let text = try PlanProgress.addedAfterPlan(plan, config: config, store: store) { log.notice("\(text)") }
        config.planRunKey = plan.runKey
        let report = try BatchRunner.run(DeriveJob(config, store: store, mode: .apply), settings: config.settings)
        // Earlier runs of the plan that are not this one (a failed run is not reopened) wrote part of it too.
        let writers = Set(runs.map(\.id) + [report.runID]).sorted()
        let undo = writers.map { "`rederive revert --db \(store.path) --run \($0)`" }.joined(separator: ", then ")
        log.notice("undo this backfill with \(undo)", metadata: ["run": "\(report.runID)"])
        return report
    }

    /// The report of an apply whose plan run `run` already applied: nothing written.
    private static func alreadyApplied(
        by run: Int64, deriver: SummaryDeriver, store: any DeriveSource & DeriveWriter
    ) -> RunReport {
        var report = RunReport(
            runID: run, command: "derive", status: .completed, exitStatus: ExitStatus.ok, statistics: RunStatistics(),
            counts: [], issuesByCode: [:], newFailures: 0, summaryVersion: deriver.version,
            fingerprint: deriver.fingerprint, resumedFrom: nil, stopReason: nil)
        report.note =
            "this plan was already applied by run \(run); nothing written "
            + "(undo it with `rederive revert --db \(store.path) --run \(run)`)"
        return report
    }

    /// A dry run on `store`, whatever its engine (see `preview(_:store:topCount:)`).
    package static func preview(
        _ config: DeriveConfiguration, store: any DeriveSource & DeriveWriter,
        topCount: Int = 20
    ) throws(RederiveError) -> ChangeReport {
        try config.selection.validate()
        let deriver = config.deriver
        let collector = ChangeCollector(
            summaryVersion: deriver.version, fingerprint: deriver.fingerprint,
            topCount: topCount)
        var settings = config.settings
        settings.control = RunControl(honoursSignals: false)  // nothing to commit: examine the whole selection
        let counter = TallyBox()
        let run = try BatchRunner.run(
            DeriveJob(config, store: store, mode: .preview(collector, counter)),
            settings: settings)
        var report = collector.report()
        report.store = store.path
        report.selection = config.selection.description
        report.seconds = run.statistics.seconds
        report.tally = counter.tally
        report.highWaterMark = counter.highWaterMark
        report.lastRunID = counter.lastRunID
        return report
    }

    /// The plan for what `preview` found on `store`, whatever its engine.
    package static func plan(
        _ report: ChangeReport, config: DeriveConfiguration,
        store: any DeriveSource & DeriveWriter
    ) throws(RederiveError) -> DerivePlan {
        guard let tally = report.tally, let upper = report.highWaterMark else {
            throw .usage("a plan needs a preview made by this build")
        }
        let s = config.selection
        return DerivePlan(
            format: DerivePlan.currentFormat,
            createdAt: ReferenceDate.iso8601(secondsSinceReferenceDate: Date().timeIntervalSinceReferenceDate),
            store: .init(
                path: store.path, id: try store.storeID(), highWaterMark: upper, lastRunID: report.lastRunID),
            summaryVersion: config.deriver.version, fingerprint: config.deriver.fingerprint,
            selection: s.description, all: s.all, ids: s.ids, since: s.since, retryFailed: s.retryFailed,
            allowDowngrade: config.settings.allowDowngrade,
            counts: .init(
                examined: tally.examined, rewrites: tally.rewrites, additions: tally.additions,
                failing: tally.failing, unchanged: tally.unchanged, newer: tally.newer),
            fieldChanges: Dictionary(
                uniqueKeysWithValues: report.fields.filter { $0.changed > 0 }.map { ($0.key, $0.changed) }),
            digest: tally.digest.hex)
    }

    /// Where a batch's results go.
    enum Mode {
        /// Into the store, with the run's checkpoint.
        case apply
        /// Into a change report (when given) and a tally; the store is only read.
        case preview(ChangeCollector?, TallyBox)
    }

    /// The tally of a dry pass, filled on the driver's thread.
    final class TallyBox {
        var tally = ChangeTally()
        var highWaterMark: Int64 = 0
        /// The last run in the history when the pass started.
        var lastRunID: Int64?
        /// A plan's verification: planned writes its earlier runs did.
        var done = 0
        /// A plan's verification: the first ids changed outside the plan, and how many.
        var outside: [String] = []
        var outsideCount = 0
    }

    /// One batch of stored rooms, and the range it covers when ranges are claimed.
    struct RoomBatch: Sendable {
        var rooms: [StoredRoom]
        var claim: RangeClaim?
    }

    /// One batch's results and the key it ends at.
    struct Results: Sendable {
        var writes: [DeriveWrite]
        var lastSeq: Int64
        var claim: RangeClaim?
        var counts = RunStatistics()
    }

    /// Set when the run stops: a producer waiting for leases to run out returns.
    final class StopFlag: Sendable {
        let stopped = Atomic<Bool>(false)
    }

    let deriver: SummaryDeriver
    let recording: RunRecording?
    var command: String { if case .preview = mode { "derive --dry-run" } else { "derive" } }
    var issuesOutOfOrder: Bool { true }
    let config: DeriveConfiguration
    let store: any DeriveSource & DeriveWriter
    private let mode: Mode
    private let stop = StopFlag()
    let rangesLost = Mutex(0)
    /// The ranges this process committed (first and last key, records read), for its log.
    let rangesDone = Mutex<[(from: Int64, to: Int64, records: Int)]>([])
    private(set) var rangeClaims: (any DeriveRangeClaims)?
    private var leases: LeaseKeeper?
    private let pool: WorkerPool<RecordProcessor>
    private let failuresAdded = Mutex(0)
    private(set) var runID: Int64 = 0
    private var fetcher: Prefetcher<Result<RoomBatch, RederiveError>>?
    private var total = 0

    private init(_ config: DeriveConfiguration, store: any DeriveSource & DeriveWriter, mode: Mode) {
        self.config = config
        self.store = store
        self.mode = mode
        self.deriver = config.deriver
        if case .apply = mode {
            let key = "derive:\(config.selection.description):\(config.deriver.fingerprint)"
            recording = RunRecording(
                store: store, resumeKey: config.planRunKey ?? key, rejoin: config.planRunKey != nil)
        } else {
            recording = nil
        }
        let deriver = config.deriver
        pool = WorkerPool(workers: config.settings.workers) { RecordProcessor(deriver: deriver) }
    }

    func start(_ run: RunStart?, log: Logger) throws(RederiveError) {
        // A preview is bounded like a fresh run: rows added while it reads are not counted.
        let upper: Int64
        if let bound = run?.upperBoundSeq ?? config.upperBound { upper = bound } else { upper = try store.maxSeq() }
        if case .preview(_, let counter) = mode { counter.highWaterMark = upper }
        let first = run?.checkpointSeq ?? 0
        if case .apply = mode, let run, let claims = store.rangeClaims {
            try startClaiming(claims, run: run, upTo: upper, log: log)
            return
        }
        if case .preview(_, let counter) = mode { counter.lastRunID = try store.lastRunID() }
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
            total =
                try store.countSelected(
                    config.selection, deriver: deriver,
                    allowDowngrade: config.settings.allowDowngrade, after: first, upTo: upper)
                + (run?.carried?.recordsRead ?? 0)
        }
        log.debug(
            "selected",
            metadata: [
                "after": "\(first)", "upTo": "\(upper)",
                "selection": "\(config.selection.description)",
            ])
        let (store, selection, deriver, limit) = (store, config.selection, deriver, config.settings.batchSize)
        let allowDowngrade = config.settings.allowDowngrade
        fetcher = Prefetcher(capacity: 1) { emit in
            var cursor = first
            while true {
                do throws(RederiveError) {
                    let batch = try store.fetchRooms(
                        selection, deriver: deriver, allowDowngrade: allowDowngrade,
                        after: cursor, upTo: upper, limit: limit)
                    guard let last = batch.last else { return }
                    cursor = last.seq
                    if !emit(.success(RoomBatch(rooms: batch, claim: nil))) { return }
                } catch {
                    _ = emit(.failure(error))
                    return
                }
            }
        }
    }

    /// The range-claiming start: the selection is cut into ranges once (a process joining
    /// the run finds them cut), then the producer claims one range after another, waiting
    /// while other processes hold the last ones (their leases may still run out).
    private func startClaiming(
        _ claims: any DeriveRangeClaims, run: RunStart, upTo: Int64, log: Logger
    ) throws(RederiveError) {
        runID = run.runID
        rangeClaims = claims
        let cut = try claims.prepareRanges(
            runID: run.runID, selection: config.selection, deriver: deriver,
            allowDowngrade: config.settings.allowDowngrade, upTo: upTo, rangeSize: config.settings.batchSize)
        log.info(
            "claiming ranges of run \(run.runID) as \(claims.workerName)",
            metadata: ["ranges": "\(cut.ranges)", "upTo": "\(cut.upTo)"])
        let (store, selection, deriver, runID) = (store, config.selection, deriver, run.runID)
        let (allowDowngrade, limit, stop) = (config.settings.allowDowngrade, config.settings.batchSize, stop)
        let leases = LeaseKeeper(claims)
        self.leases = leases
        fetcher = Prefetcher(capacity: 1) { emit in
            while !stop.stopped.load(ordering: .relaxed) {
                do throws(RederiveError) {
                    switch try claims.claimNext(runID: runID) {
                    case .finished:
                        return
                    case .wait(let seconds):
                        Thread.sleep(forTimeInterval: min(max(seconds, 0.05), 0.5))
                    case .claimed(let claim):
                        leases.hold(claim)
                        var rooms: [StoredRoom] = []
                        var cursor = claim.after
                        while true {
                            let page = try store.fetchRooms(
                                selection, deriver: deriver, allowDowngrade: allowDowngrade,
                                after: cursor, upTo: claim.upTo, limit: limit)
                            rooms += page
                            // A range holds about `limit` selected records: a full page that
                            // reaches its end needs no second (empty) read.
                            guard let last = page.last, page.count == limit, last.seq < claim.upTo else { break }
                            cursor = last.seq
                        }
                        if !emit(.success(RoomBatch(rooms: rooms, claim: claim))) { return }
                    }
                } catch {
                    _ = emit(.failure(error))
                    return
                }
            }
        }
    }

    func nextBatch() throws(RederiveError) -> RoomBatch? { try fetcher?.next()?.get() }

    func process(
        _ roomBatch: RoomBatch, stats: inout RunStatistics,
        issues: IssueReport
    ) throws(RederiveError) -> Results {
        let before = stats
        let batch = roomBatch.rooms
        let results = pool.map(batch) { processor, room in
            processor.derive(room: room.skeleton, id: room.id, storedByImport: true)
        }
        // A dry run counts into a tally (and a change report, when asked); a real run does not.
        let (collector, counter): (ChangeCollector?, TallyBox?) =
            if case .preview(let c, let t) = mode { (c, t) } else { (nil, nil) }
        var writes: [DeriveWrite] = []
        writes.reserveCapacity(batch.count)
        // A plan's verification reads the history later runs left for the batch's records.
        var history: [Int64: [ReplacedSummary]] = [:]
        if let progress = config.planProgress, counter != nil, let first = batch.first, let last = batch.last {
            history = Dictionary(
                grouping: try store.replacedSummaries(
                    afterRun: progress.madeAfterRun, after: first.seq - 1, upTo: last.seq), by: \.seq)
        }
        for (room, result) in zip(batch, results) {
            stats.recordsRead += 1
            stats.decodedBytes += Int64(room.skeleton.count)
            counter?.tally.examined += 1
            if let progress = config.planProgress, let counter {
                let planned = if case .success(let (_, json)) = result { isDerived(room, json) } else { false }
                switch progress.verdict(storedRun: room.storedRunID, planned: planned, history: history[room.seq] ?? [])
                {
                case .done(let before):
                    // Counted as the write it was: over what the record held before.
                    if case .success(let (_, json)) = result {
                        counter.tally.write(
                            seq: room.seq, stored: before?.json, storedVersion: before?.version, newJSON: json)
                    }
                    counter.done += 1
                    continue
                case .changedOutside:
                    counter.outsideCount += 1
                    if counter.outside.count < 20 { counter.outside.append(room.id) }
                case .asStored:
                    break
                }
            }
            // Selected by --all, --ids or --retry-failed: a newer summary is still left alone.
            if freshness(room).isKept(allowDowngrade: config.settings.allowDowngrade) {
                stats.recordsNewer += 1
                counter?.tally.newer += 1
                continue
            }
            switch result {
            case .success(let (summary, json)):
                let identical = isDerived(room, json)
                if identical && !config.rewriteUnchanged {
                    stats.recordsUnchanged += 1
                    writes.append(.unchanged(id: room.id))
                    counter?.tally.unchanged += 1
                } else {
                    stats.recordsDone += 1
                    // The job knows what it replaces: no history row for a first summary or for
                    // a --rewrite of identical values, and no comparison in SQL for the others.
                    let replaced: SummaryReplacement =
                        room.storedJSON == nil || identical ? .nothing : .differentSummary
                    writes.append(
                        .summary(seq: room.seq, id: room.id, summary: summary, json: json, replacing: replaced))
                    counter?.tally.write(
                        seq: room.seq, stored: room.storedJSON, storedVersion: room.storedVersion, newJSON: json)
                }
                collector?.add(
                    id: room.id, roomName: room.roomName, storedJSON: room.storedJSON,
                    storedVersion: room.storedVersion, storedFingerprint: room.storedFingerprint,
                    newSummary: summary, newJSON: json, sourceFile: room.sourceFile,
                    formatVersion: room.formatVersion, storedMethod: room.storedMethod, rawRoom: room.skeleton)
            case .failure(let failure):
                stats.recordsSkipped += 1
                let issue = failure.issue(file: room.sourceFile, line: room.sourceLine)
                try issues.add(issue)
                writes.append(.failure(issue))
                counter?.tally.failing += 1
                collector?.addFailure(
                    id: room.id, roomName: room.roomName, stage: failure.stage.rawValue,
                    code: failure.code.rawValue, message: failure.message,
                    sourceFile: room.sourceFile, formatVersion: room.formatVersion,
                    storedVersion: room.storedVersion, storedMethod: room.storedMethod)
            }
        }
        var counts = RunStatistics()
        counts.recordsRead = stats.recordsRead - before.recordsRead
        counts.recordsDone = stats.recordsDone - before.recordsDone
        counts.recordsUnchanged = stats.recordsUnchanged - before.recordsUnchanged
        counts.recordsSkipped = stats.recordsSkipped - before.recordsSkipped
        counts.recordsNewer = stats.recordsNewer - before.recordsNewer
        counts.decodedBytes = stats.decodedBytes - before.decodedBytes
        return Results(
            writes: writes, lastSeq: batch.last?.seq ?? roomBatch.claim?.upTo ?? 0, claim: roomBatch.claim,
            counts: counts)
    }

    /// How current `room`'s stored summary is for this deriver.
    private func freshness(_ room: StoredRoom) -> SummaryFreshness {
        .classify(version: room.storedVersion, fingerprint: room.storedFingerprint, for: deriver)
    }

    /// Whether `room`'s stored summary is exactly `json` by this deriver.
    private func isDerived(_ room: StoredRoom, _ json: [UInt8]) -> Bool {
        freshness(room) == .fresh && room.storedJSON.map { JSONText.sameBytes($0, json) } == true
    }

    func write(_ results: Results, progress: RunStatistics) throws(RederiveError) {
        guard case .apply = mode else { return }
        if let claim = results.claim, let claims = rangeClaims {
            try commit(claim, results: results, claims: claims)
            return
        }
        let added = try store.writeDeriveBatch(
            results.writes, runID: runID, deriver: deriver,
            checkpointSeq: results.lastSeq, progress: progress)
        failuresAdded.withLock { $0 += added }
    }

    /// Commits a claimed range (fenced by its attempt). A lost claim writes nothing and is
    /// only counted; a write that fails gives the range back (open again, or failed after
    /// its last attempt) and the run goes on with the next one, unless even that fails.
    private func commit(_ claim: RangeClaim, results: Results, claims: any DeriveRangeClaims) throws(RederiveError) {
        let log = Logger(label: "rederive.derive")
        defer { leases?.release(claim) }
        do {
            guard
                let added = try claims.commitRange(
                    claim, writes: results.writes, runID: runID, deriver: deriver, counts: results.counts)
            else {
                rangesLost.withLock { $0 += 1 }
                let text =
                    "range \(claim.after + 1)...\(claim.upTo) was taken over by another process after this one's "
                    + "lease ran out (attempt \(claim.attempt)); its results were not written"
                log.warning("\(text)")
                return
            }
            failuresAdded.withLock { $0 += added }
            rangesDone.withLock { $0.append((claim.after + 1, claim.upTo, results.counts.recordsRead)) }
            log.debug(
                "range \(claim.after + 1)...\(claim.upTo) done (attempt \(claim.attempt))",
                metadata: ["records": "\(results.counts.recordsRead)", "worker": "\(claims.workerName)"])
        } catch {
            try claims.releaseRange(claim, error: "\(error)")
            log.warning(
                "range \(claim.after + 1)...\(claim.upTo) (attempt \(claim.attempt)) could not be written: \(error)")
        }
    }

    func cancel() {
        stop.stopped.store(true, ordering: .relaxed)
        fetcher?.cancel()
    }

    func finish(status: RunStatus, stats: inout RunStatistics) {
        guard let claims = rangeClaims else { return }
        // Every write is done: what is still held was read ahead but will not be committed by
        // this process (it was stopped). Given back, other processes (or a rerun) take those
        // ranges at once instead of after their leases.
        if let leases {
            leases.stop()
            let leftover = leases.heldClaims
            do {
                try claims.giveBack(leftover)
            } catch {
                Logger(label: "rederive.derive").warning(
                    "\(leftover.count) range(s) not given back (taken again after their leases): \(error)")
            }
        }
        let done = rangesDone.withLock { $0 }
        let records = done.reduce(0) { $0 + $1.records }
        let list = Self.rangeList(done.map { ($0.from, $0.to) })
        Logger(label: "rederive.derive").info(
            "\(claims.workerName) committed \(done.count) range(s) of run \(runID), \(records) records: \(list)",
            metadata: ["ranges": "\(done.count)", "records": "\(records)", "worker": "\(claims.workerName)"])
    }

    /// `1...500, 1001...1500, …` (at most the first 8, then how many more).
    static func rangeList(_ ranges: [(Int64, Int64)]) -> String {
        guard !ranges.isEmpty else { return "none" }
        let shown = ranges.prefix(8).map { "\($0.0)...\($0.1)" }.joined(separator: ", ")
        return ranges.count > 8 ? shown + " and \(ranges.count - 8) more" : shown
    }

    func progressFraction(_ stats: RunStatistics) -> Double? {
        total > 0 ? Double(stats.recordsRead) / Double(total) : nil
    }

    func counts(_ stats: RunStatistics) -> [(String, Int)] {
        [("derived", stats.recordsDone), ("newer", stats.recordsNewer)]
    }

    var newFailures: Int { failuresAdded.withLock { $0 } }
}
