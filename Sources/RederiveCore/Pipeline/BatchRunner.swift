import Foundation
import Logging

/// The one driver of every batch run. It owns the run's lifecycle — history row (begin,
/// resume, finish), issue report, progress line, background writer, error budget and
/// signals, and the `RunReport` — and leaves each `BatchJob` only its source, its work per
/// batch and its batch write.
///
/// Failure rules, the same for every job: a fatal error (reading, writing, the report)
/// records the run as `failed` with exit status 2 and is thrown; the error budget counts
/// skipped records and file faults; a signal or the budget stops the run after the batch in
/// hand is committed.
enum BatchRunner {
    /// Runs `job` with `settings` to its end, a stop, or a fatal error.
    static func run<Job: BatchJob>(_ job: Job, settings: RunSettings) throws(RederiveError) -> RunReport {
        let clock = Stopwatch()
        let log = Logger(label: "rederive.\(job.command)")
        let recording = job.recording
        var stats = RunStatistics()
        var run: RunStart?

        // Records a fatal error in the history (best effort: the store may be what failed).
        func failed(_ error: RederiveError) -> RederiveError {
            job.cancel()
            if let recording, let run {
                stats.seconds = clock.seconds
                try? recording.store.finishRun(
                    run.runID, status: .failed, exitStatus: error.exitStatus.rawValue, statistics: stats)
            }
            return error
        }

        if let recording {
            run = try recording.store.beginRun(
                RunStartRequest(
                    command: job.command, pipeline: settings.pipeline,
                    arguments: ArgumentRedaction.scrubbed(settings.arguments),
                    resumeKey: recording.resumeKey, deriver: job.deriver, allowDowngrade: settings.allowDowngrade,
                    continuation: recording.continuation, onlyJoin: recording.whenCompleted != nil))
            // A run reopened under its own id goes on from the totals it had saved.
            if let carried = run?.carried { stats = carried }
            if let done = run, done.alreadyCompleted, let note = recording.whenCompleted {
                return .nothingLeft(
                    runID: done.runID, command: job.command, deriver: job.deriver, note: note(done.runID))
            }
        }
        var reportPath = settings.reportPath
        if settings.reportPerRun, let path = reportPath, let run, let recording {
            let storeID: String
            do { storeID = try recording.store.storeID() } catch { throw failed(error) }
            reportPath = RunSettings.perRunReportPath(path, runID: run.runID, storeID: storeID)
        }
        let issues: IssueReport
        do {
            issues = try IssueReport(
                path: reportPath, buffered: job.issuesOutOfOrder, onlyWithIssues: reportPath != settings.reportPath)
        } catch { throw failed(error) }
        let sink: BatchSink<Job.Write>
        do { sink = try job.start(run, log: log) } catch { throw failed(error) }

        // Between batches the governor decides (signals, the error budget, the operator's control,
        // the rate budget, the next batch's size); a run kept in no history has signals and budget only.
        var controls: (any RunControls)?
        if let recording, run != nil {
            do { controls = try recording.store.openRunControls() } catch { throw failed(error) }
        }
        defer { controls?.closeControls() }
        // Health is read on the control's own session where it has one (PostgreSQL): the store's
        // reader is kept busy reading ahead.
        let governor = RunGovernor(
            settings: settings, controls: controls, runID: run?.runID ?? 0,
            health: run == nil
                ? nil : (controls as? any StoreHealthReading) ?? (recording?.store as? any StoreHealthReading))
        let ledger = governor.ledger
        // The writer thread sees the job's sink and the governor's ledger only.
        let writer = BackgroundWriter<(Job.Write, RunStatistics, Int)> { item throws(RederiveError) in
            let commit = Stopwatch()
            try sink.write(item.0, item.1)
            ledger.committed(item.2, seconds: commit.seconds)
        }
        let progress = ProgressLine(label: job.command, enabled: settings.showProgress && isatty(2) == 1)
        var status = RunStatus.completed
        var stopReason: String?
        var exitOverride: ExitStatus?
        do {
            var decision = governor.decideFirst()
            while true {
                if case .pause(let paused) = decision {
                    // Nothing in flight, nothing held: a pause of any length loses nothing.
                    writer.drain()
                    try job.yieldForPause()
                    decision = governor.waitOutPause(paused)
                    if decision == .goOn { try job.resumeAfterPause() }
                    continue
                }
                if decision == .waitForHealth {
                    writer.drain()
                    try job.yieldForPause()
                    decision = governor.waitOutHealth()
                    if decision == .goOn { try job.resumeAfterPause() }
                    continue
                }
                if case .stop(let stopStatus, let reason, let exit) = decision {
                    (status, stopReason, exitOverride) = (stopStatus, reason, exit)
                    break
                }
                governor.claiming()
                let reading = Stopwatch()
                guard let batch = try job.nextBatch() else { break }
                let waitedForRead = reading.seconds
                let (before, working) = (stats.recordsRead, Stopwatch())
                let write = try job.process(batch, stats: &stats, issues: issues)
                let ticket = governor.handedOver(
                    records: stats.recordsRead - before, keys: job.batchKeys(write),
                    readSeconds: job.readSeconds(batch) ?? waitedForRead, deriveSeconds: working.seconds)
                writer.submit((write, stats, ticket))
                if writer.failed { break }
                let skipped = stats.recordsSkipped + stats.fileFaults
                progress.update(
                    records: stats.recordsRead, bytes: job.progressShowsBytes ? stats.decodedBytes : 0,
                    fraction: job.progressFraction(stats), skipped: skipped)
                decision = governor.decide(skipped: skipped, read: stats.recordsRead)
                if let size = governor.batchSize { job.resize(to: size) }
            }
        } catch {
            progress.finish()
            try? writer.finish()
            throw failed(error)
        }
        job.cancel()
        progress.finish()
        do {
            try writer.finish()
            governor.finish()
            try issues.finish()
            try job.finish(status: status, stats: &stats)
        } catch {
            throw failed(error)
        }
        let warnings: [String]
        do { warnings = status == .completed ? try job.warnings(stats) : [] } catch { throw failed(error) }
        stats.seconds = clock.seconds
        var exit =
            exitOverride ?? RunControl.exitStatus(for: status, skipped: stats.recordsSkipped + stats.fileFaults)
        if exit == .ok && !warnings.isEmpty { exit = .skippedRecords }
        if let recording, let run {
            try recording.store.finishRun(run.runID, status: status, exitStatus: exit.rawValue, statistics: stats)
        }
        var report = RunReport(
            runID: run?.runID ?? 0, command: job.command, status: status, exitStatus: exit, statistics: stats,
            counts: job.counts(stats), issuesByCode: issues.countsByCode, newFailures: job.newFailures,
            summaryVersion: job.deriver.version, fingerprint: job.deriver.fingerprint, resumedFrom: run?.resumedFrom,
            stopReason: stopReason)
        report.reportPath = issues.writtenPath
        report.outputPath = status == .completed ? job.outputPath : nil
        report.warnings = warnings
        if run != nil {
            report.batches = governor.totals
            report.throttle = governor.throttle
        }
        return report
    }
}
