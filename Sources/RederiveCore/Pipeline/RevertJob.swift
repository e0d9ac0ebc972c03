import Foundation
import Logging
import Synchronization

/// What `rederive revert` does.
public struct RevertConfiguration: Sendable {
    /// The run whose overwrites are undone.
    public var run: Int64
    /// Report only: write nothing, record no run.
    public var dryRun: Bool
    /// Batch size, signals and run-history details (workers are not used: a revert derives nothing).
    public var settings: RunSettings

    /// Creates a configuration.
    public init(run: Int64, dryRun: Bool = false, settings: RunSettings = RunSettings(arguments: "revert")) {
        self.run = run
        self.dryRun = dryRun
        self.settings = settings
    }
}

/// `rederive revert --run N`: puts back every summary run N replaced (from the summary
/// history), except where a later run has changed the record since — those are conflicts,
/// left untouched and named. Records already holding the summary to restore (a revert done
/// before) are counted as already reverted, so reverting twice is harmless. The revert is a
/// recorded, resumable run (keyset over the history, with a checkpoint) and keeps what it
/// replaces in the history too: reverting the revert redoes run N.
///
/// The job runs on the driver's thread; its sink (the writer thread) commits the restores.
public final class RevertJob: BatchJob {
    /// Runs the revert (or its dry run) on `store`, whatever its engine.
    package static func run(_ config: RevertConfiguration, store: any RevertWriter) throws(RederiveError) -> RunReport {
        guard let command = try store.runCommand(id: config.run) else {
            throw .usage("\(store.path): there is no run \(config.run) (see `rederive status --runs N`)")
        }
        var settings = config.settings
        if config.dryRun { settings.control = RunControl(honoursSignals: false) }
        let job = RevertJob(config, store: store, revertedCommand: command)
        var report = try BatchRunner.run(job, settings: settings)
        if config.dryRun { report.changes = job.changes.map(\.json) }
        return report
    }

    /// Logs the `rederive revert` that undoes `report`'s run when it replaced existing
    /// summaries (a derive that rewrote some, whatever asked for it); nothing otherwise.
    static func logUndo(of report: RunReport, store: any RunHistory) throws(RederiveError) {
        guard report.isRecorded, try store.maxHistoryID(replacedBy: report.runID) > 0 else { return }
        let undo = "`rederive revert --db \(store.path) --run \(report.runID)`"
        Logger(label: "rederive.derive").notice(
            "this run rewrote existing summaries: undo it with \(undo)", metadata: ["run": "\(report.runID)"])
    }

    /// Conflicting record ids named in the log (the count is always complete).
    static let conflictsShown = 20

    let command: String
    let deriver = SummaryDeriver()
    let recording: RunRecording?
    private let config: RevertConfiguration
    private let store: any RevertWriter
    private let revertedCommand: String
    private var runID: Int64 = 0
    private var cursor: Int64 = 0
    private var upper: Int64 = 0
    /// The size of the next batch read (`--batch-size`, then the governor's with `--batch-seconds`).
    private var batchSize: Int
    private var log = Logger(label: "rederive.revert")
    private var restored = 0
    private var conflicts = 0
    private var alreadyReverted = 0
    private var conflictIDs: [String] = []
    /// A dry run's restores, field by field (for `--json` and the log).
    private var changes: [RevertChange] = []

    private init(_ config: RevertConfiguration, store: any RevertWriter, revertedCommand: String) {
        self.config = config
        self.store = store
        self.revertedCommand = revertedCommand
        self.command = config.dryRun ? "revert --dry-run" : "revert"
        batchSize = config.settings.batchSize
        recording = config.dryRun ? nil : RunRecording(store: store, resumeKey: "revert:\(config.run)")
    }

    func start(
        _ run: RunStart?, log: Logger
    ) throws(RederiveError) -> BatchSink<([(seq: Int64, summary: StoredSummary)], Int64)> {
        self.log = log
        runID = run?.runID ?? 0
        cursor = run?.checkpointSeq ?? 0
        if let bound = run?.upperBoundSeq {
            upper = bound
        } else {
            upper = try store.maxHistoryID(replacedBy: config.run)
        }
        if let run {
            try store.setUpperBound(runID: run.runID, upperBoundSeq: upper)
            if let previous = run.resumedFrom {
                log.notice("continuing unfinished run \(previous) after history key \(cursor)")
            }
        }
        log.debug("reverting", metadata: ["run": "\(config.run)", "command": "\(revertedCommand)"])
        guard !config.dryRun else { return .discarding }
        let (store, runID) = (store, runID)
        return BatchSink { write, progress throws(RederiveError) in
            try store.writeRevertBatch(write.0, runID: runID, checkpoint: write.1, progress: progress)
        }
    }

    func nextBatch() throws(RederiveError) -> [RevertCandidate]? {
        let batch = try store.fetchRevertCandidates(
            replacedBy: config.run, after: cursor, upTo: upper, limit: batchSize)
        guard let last = batch.last else { return nil }
        cursor = last.seq
        return batch
    }

    func resize(to size: Int) { batchSize = max(1, size) }

    func process(
        _ batch: [RevertCandidate], stats: inout RunStatistics,
        issues: IssueReport
    ) -> ([(seq: Int64, summary: StoredSummary)], Int64) {
        var restores: [(seq: Int64, summary: StoredSummary)] = []
        for candidate in batch {
            stats.recordsRead += 1
            if let current = candidate.current, current.runID == config.run {
                // Restored as written by this revert (the history keeps the original row).
                restores.append((candidate.seq, candidate.previous.writtenBy(runID)))
                if config.dryRun {
                    changes.append(RevertChange(id: candidate.id, from: current, to: candidate.previous))
                }
                stats.recordsDone += 1
                restored += 1
            } else if let current = candidate.current, current.sameSummary(as: candidate.previous) {
                stats.recordsUnchanged += 1
                alreadyReverted += 1
            } else {
                conflicts += 1
                if conflictIDs.count < Self.conflictsShown { conflictIDs.append(candidate.id) }
            }
        }
        return (restores, batch.last?.seq ?? cursor)
    }

    func cancel() {}

    func finish(status: RunStatus, stats: inout RunStatistics) {
        if config.dryRun && !changes.isEmpty {
            let shown = changes.prefix(Self.conflictsShown).map(\.text).joined(separator: "; ")
            let more = changes.count > Self.conflictsShown ? "; … (`--json` lists all \(changes.count))" : ""
            log.notice("would restore: \(shown)\(more)")
        }
        if conflicts > 0 {
            let more = conflicts > conflictIDs.count ? ", …" : ""
            let ids = conflictIDs.joined(separator: ", ") + more
            log.warning(
                """
                \(conflicts) record(s) changed by a later run since run \(config.run) were left untouched \
                (conflicts): \(ids)
                """
            )
        }
    }

    /// A run whose history `history --prune` deleted has nothing (or less) to restore: said,
    /// and exit 3, rather than a clean "0 restored".
    func warnings(_ stats: RunStatistics) throws(RederiveError) -> [String] {
        let pruned = try store.prunedHistoryCount(of: config.run)
        guard pruned > 0 else { return [] }
        return [
            "history of run \(config.run) was pruned: nothing to restore for \(pruned) record\(pruned == 1 ? "" : "s")"
                + " (`history --prune` deleted what run \(config.run) replaced)"
        ]
    }

    func counts(_ stats: RunStatistics) -> [(String, Int)] {
        [
            (config.dryRun ? "wouldRestore" : "restored", restored), ("conflicts", conflicts),
            ("alreadyReverted", alreadyReverted),
        ]
    }
}

/// One record a revert would restore: the summary fields that would change, current → restored.
struct RevertChange {
    /// The record's id.
    var id: String
    /// Changed fields, by name: the value now and the value restored (compact JSON).
    var fields: [(name: String, from: String, to: String)]

    init(id: String, from current: StoredSummary, to restored: StoredSummary) {
        self.id = id
        var fields: [(name: String, from: String, to: String)] = []
        if current.summaryVersion != restored.summaryVersion {
            fields.append(("summary_version", String(current.summaryVersion), String(restored.summaryVersion)))
        }
        // The same text has no changed field (a version-only backfill's revert): not parsed,
        // which is otherwise most of a dry run's time.
        if !current.summaryJSON.utf8.elementsEqual(restored.summaryJSON.utf8) {
            let now = SummaryValue.parseObject(Data(current.summaryJSON.utf8)) ?? [:]
            let then = SummaryValue.parseObject(Data(restored.summaryJSON.utf8)) ?? [:]
            for key in Set(now.keys).union(then.keys).sorted() where now[key] != then[key] {
                fields.append((key, now[key]?.jsonText ?? "null", then[key]?.jsonText ?? "null"))
            }
        }
        self.fields = fields
    }

    /// `{"id":…,"fields":{"name":{"from":…,"to":…},…}}`
    var json: String {
        let members = fields.map { "\(JSONText.string($0.name)):{\"from\":\($0.from),\"to\":\($0.to)}" }
        return "{\"id\":\(JSONText.string(id)),\"fields\":{\(members.joined(separator: ","))}}"
    }

    /// `ID: name old → new, …` for the log.
    var text: String {
        let list = fields.map { "\($0.name) \($0.from) → \($0.to)" }.joined(separator: ", ")
        return "\(id): " + (list.isEmpty ? "fingerprint only" : list)
    }
}
