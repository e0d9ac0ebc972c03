import Foundation
import Logging

/// Runs a resolved pipeline's stages in order against one store. A stage that skipped
/// records (exit 3) lets the pipeline go on; a stage stopped by the error budget (4) or a
/// signal (130/143) stops it; a fatal error throws (`run`) or ends the outcome (`runToEnd`).
public enum PipelineRunner {
    /// Runs `pipeline`; `log` receives each stage's tally line as it finishes.
    public static func run(_ pipeline: ResolvedPipeline, log: (String) -> Void) throws(RederiveError) -> PipelineOutcome
    {
        try run(pipeline) { _, line, _ in log(line) }
    }

    /// Runs `pipeline`; `log` receives each stage's tally line as it finishes, with the
    /// stage's figures as typed metadata (`stage`, `index`, then `RunReport.logMetadata`),
    /// at level `info`, and each of the stage's warnings at level `warning`.
    public static func run(
        _ pipeline: ResolvedPipeline, log: (Logger.Level, String, Logger.Metadata) -> Void
    ) throws(RederiveError) -> PipelineOutcome {
        let outcome = runToEnd(pipeline, log: log)
        if let failure = outcome.failure { throw failure }
        return outcome
    }

    /// Runs `pipeline` like `run`, but a stage's fatal fault ends the pipeline inside the
    /// outcome instead of being thrown: that stage's report is a `RunReport.failure` (the
    /// error's status and message), later stages are not run, and `failure` holds the error,
    /// so that the caller can still write the results and the metrics of a failed run.
    public static func runToEnd(
        _ pipeline: ResolvedPipeline, log: (Logger.Level, String, Logger.Metadata) -> Void
    ) -> PipelineOutcome {
        var result = PipelineResult(pipeline)
        let labels = result.stages.map(\.label)
        var outcome = PipelineOutcome(reports: [], previews: [], exitStatus: .ok, result: result)
        var store: (any RecordStore)?
        defer { store?.close() }
        // Only an import may create the store: a derive or export on a missing (mistyped)
        // store is a usage error, not an empty success.
        func writable(mayCreate: Bool = false) throws(RederiveError) -> any RecordStore {
            if let store { return store }
            let opened = try RecordStores.open(pipeline.store, mode: mayCreate ? .createIfMissing : .existing)
            store = opened
            return opened
        }
        stages: for (index, stage) in pipeline.stages.enumerated() {
            let stageMetadata: Logger.Metadata = ["stage": .string(labels[index]), "index": .stringConvertible(index)]
            let report: RunReport
            do throws(RederiveError) {
                switch stage {
                case .skipped(let name):
                    result.stages[index].outcome = .skipped
                    log(.info, "\(name): skipped (--dry-run)", stageMetadata.merging(["status": "skipped"]) { $1 })
                    continue
                case .preview(let config, let fileDirectory, let filePlan):
                    // A preview reads through its own read-only connection: it writes nothing.
                    let readOnly = try RecordStores.open(pipeline.store, mode: .readOnly)
                    defer { readOnly.close() }
                    outcome.storeID = try readOnly.storeID()
                    let directory = pipeline.storeNamed(fileDirectory, storeID: outcome.storeID)
                    let planPath = filePlan.map { pipeline.storeNamed($0, storeID: outcome.storeID) }
                    let preview = try DerivePreviewFlow.run(
                        config, store: readOnly, directory: directory, planPath: planPath,
                        previewed: { preview in
                            outcome.previews.append(preview)
                            result.stages[index].outcome = .previewed(preview, directory: directory)
                        },
                        log: { level, text, fields in log(level, text, stageMetadata.merging(fields) { $1 }) })
                    if preview.exitStatus != .ok { outcome.exitStatus = preview.exitStatus }
                    continue
                case .importExports(let config):
                    report = try ImportJob.run(config, store: try writable(mayCreate: true))
                case .derive(let config):
                    report = try DeriveJob.run(config, store: try writable())
                case .applyPlan(let config, let filePath):
                    let store = try writable()
                    // The plan this file's dry run wrote for this store, else the file as named (a plan
                    // made by `derive --plan`); a plan is bound to its store either way.
                    let tagged = pipeline.storeNamed(filePath, storeID: try store.storeID())
                    let path = FileManager.default.fileExists(atPath: tagged) ? tagged : filePath
                    let plan = try DerivePlan.load(path: path)
                    log(
                        .info,
                        "applying the plan \(path): \(plan.counts.rewrites) rewrites, \(plan.counts.additions) new "
                            + "summaries (\(plan.selection))", stageMetadata.merging(["plan": .string(path)]) { $1 })
                    report = try DeriveJob.apply(plan, config: config, store: store)
                case .export(let config):
                    report = try ExportJob.run(config, store: try writable())
                }
            } catch {
                let failed = RunReport.failure(command: result.stages[index].name, error: error)
                outcome.reports.append(failed)
                result.stages[index].outcome = .ran(failed)
                result.reason = error.description
                outcome.exitStatus = error.exitStatus
                outcome.failure = error
                break stages
            }
            outcome.reports.append(report)
            result.stages[index].outcome = .ran(report)
            log(.info, report.tallyLine(), stageMetadata.merging(report.logMetadata) { $1 })
            for warning in report.warnings {
                log(.warning, warning, stageMetadata)
            }
            let status = report.exitStatus
            if status == .skippedRecords {
                outcome.exitStatus = .skippedRecords
            } else if status != .ok {
                outcome.exitStatus = status
                result.reason = report.stopReason.map { "\(result.stages[index].name): \($0)" }
                break stages
            }
        }
        result.finishedAt = Date()
        result.exitStatus = outcome.exitStatus
        outcome.result = result
        // For the names that carry it; a store that cannot say (its connection lost) keeps them plain.
        if let store { outcome.storeID = (try? store.storeID()) ?? "" }
        if pipeline.metricsFile != nil, !pipeline.dryRun, let store {
            outcome.storeFigures = MetricsFile.StoreFigures.read(from: store)
        }
        if let keep = pipeline.keepReports, !pipeline.dryRun, !outcome.storeID.isEmpty {
            ReportRetention.prune(pipeline, storeID: outcome.storeID, keep: keep) { line in log(.info, line, [:]) }
        }
        return outcome
    }
}
