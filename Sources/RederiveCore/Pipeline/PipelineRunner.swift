import Foundation
import Logging

/// Command-line values that override a pipeline file (flag > file > default).
public struct PipelineOverrides: Sendable {
    /// `--db`: the store.
    public var store: String?
    /// `--workers`.
    public var workers: Int?
    /// `--batch-size`.
    public var batchSize: Int?
    /// `--input`: replaces the paths of every import stage.
    public var inputs: [String]?
    /// `--out`: replaces the output of every export stage.
    public var out: String?
    /// `--dry-run`: derive stages only preview, import and export stages are skipped.
    public var dryRun = false
    /// `--max-errors` for every stage.
    public var maxErrors: Int?
    /// `--max-error-rate` for every stage.
    public var maxErrorRate: Double?
    /// `--metrics-file`.
    public var metricsFile: String?
    /// Import stages read files that ended in a file fault before again (`--retry-files`).
    public var retryFiles = false
    /// `--allow-downgrade` for every derive and import stage.
    public var allowDowngrade = false
    /// `--report`: every import and derive stage's issue report, from a directory
    /// (`DIR/PIPELINE-LABEL-issues.jsonl`) or a file name (`X.jsonl` → `X-LABEL.jsonl`);
    /// either way with the per-run name (`…-run<N>.jsonl`).
    public var report: String?
    /// `--throttle`, `--max-standby-lag`, `--health-limit`, `--unmeasurable` for every derive
    /// stage: each wins over the stage's key of the same name.
    public var health = HealthSettings()

    /// No overrides.
    public init() {}

    /// Refuses values no stage could run with (the same rules as pipeline files).
    public func validate() throws(RederiveError) {
        if let workers, workers < 1 { throw .usage("workers must be at least 1") }
        if let batchSize, batchSize < 1 { throw .usage("batch-size must be at least 1") }
        if let maxErrors, maxErrors < 0 { throw .usage("max-errors must not be negative") }
        if let maxErrorRate, !(0...1).contains(maxErrorRate) { throw .usage("max-error-rate must be between 0 and 1") }
    }
}

/// A pipeline with every option resolved once into immutable stage configurations.
public struct ResolvedPipeline: Sendable {
    /// One stage, ready to run.
    public enum Stage: Sendable {
        /// An import.
        case importExports(ImportConfiguration)
        /// A derive.
        case derive(DeriveConfiguration)
        /// A dry-run derive writing its preview into the directory (and a plan, when asked).
        case preview(DeriveConfiguration, directory: String, plan: String?)
        /// A derive applying the plan file (`derive --apply-plan`).
        case applyPlan(DeriveConfiguration, plan: String)
        /// An export.
        case export(ExportConfiguration)
        /// A stage `--dry-run` leaves out.
        case skipped(String)
    }

    /// The pipeline's name.
    public var name: String
    /// The store.
    public var store: String
    /// The metrics file, if any.
    public var metricsFile: String?
    /// The stages in order.
    public var stages: [Stage]
    /// Each stage's name in the file (`import`, `derive`, `export`), in order.
    public var stageNames: [String] = []
    /// Each stage's label for logs, metrics and results: its name, or `name-N` (1-based
    /// among stages of that name) when several stages share it.
    public var stageLabels: [String] = []
    /// The pipeline file.
    public var file: String = ""
    /// Whether the whole pipeline is a dry run (`--dry-run`).
    public var dryRun = false
    /// The paths the pipeline file names that every store shares (`preview-out`, `plan`,
    /// `apply-plan`, `metrics-file`): they get the store's tag when used (`storeNamed`).
    public var storeNamedPaths: Set<String> = []
    /// `keep-reports`: the per-run issue reports kept of each stage (nil: all).
    public var keepReports: Int?

    /// `path` as this store uses it: with the store's tag when the pipeline file named it
    /// (`StoreNaming`), so two stores run through one file keep their own files; as given otherwise.
    public func storeNamed(_ path: String, storeID: String) -> String {
        storeNamedPaths.contains(path) ? StoreNaming.path(path, storeID: storeID) : path
    }

    /// Labels for stages named `names`: unique names as they are, repeated ones numbered.
    public static func labels(for names: [String]) -> [String] {
        var seen: [String: Int] = [:]
        return names.map { name in
            guard names.filter({ $0 == name }).count > 1 else { return name }
            seen[name, default: 0] += 1
            return "\(name)-\(seen[name]!)"
        }
    }

    /// The report path of the stage labelled `label` under a `--report` value: a directory
    /// unless it ends in `.jsonl` or `.jsonl.zst`.
    static func stageReport(_ base: String, pipeline: String, label: String) -> String {
        for suffix in [".jsonl.zst", ".jsonl"] where base.hasSuffix(suffix) {
            return String(base.dropLast(suffix.count)) + "-\(label)" + suffix
        }
        return (base.hasSuffix("/") ? base : base + "/") + "\(pipeline)-\(label)-issues.jsonl"
    }

    /// Resolves `definition` with `overrides` (flag > file > default).
    public static func resolve(
        _ definition: PipelineDefinition, overrides: PipelineOverrides,
        deriver: SummaryDeriver = SummaryDeriver(),
        arguments: String
    ) throws(RederiveError) -> ResolvedPipeline {
        try overrides.validate()
        guard let store = overrides.store ?? definition.store else {
            throw .usage("\(definition.path): no store: give --db or a `store:` key")
        }
        var stages: [Stage] = []
        let reportsDir = definition.reportsDir.map { reportsFolder($0, store: store, pipelineFile: definition.path) }
        let deriveStages = definition.stages.filter { if case .derive = $0 { true } else { false } }.count
        let hasPreviewStage = definition.stages.contains { if case .derive(let s) = $0 { s.dryRun } else { false } }
        let labels = labels(for: definition.stages.map(\.name))
        for (index, stage) in definition.stages.enumerated() {
            // `--report`, else the stage's `report`, else one in the pipeline's `reports-dir`.
            let overriddenReport = (overrides.report ?? (stage.report == nil ? reportsDir : nil)).map {
                stageReport($0, pipeline: definition.name, label: labels[index])
            }
            // A batch stage's settings: flags first, then the stage, then the pipeline, then the defaults.
            func settings(_ s: some BatchStageOptions) -> RunSettings {
                var settings = RunSettings(
                    workers: overrides.workers ?? s.workers ?? definition.workers ?? RunSettings.defaultWorkers,
                    batchSize: overrides.batchSize ?? s.batchSize ?? definition.batchSize
                        ?? RunSettings.defaultBatchSize,
                    reportPath: overriddenReport ?? s.report,
                    control: RunControl(
                        maxErrors: overrides.maxErrors ?? s.maxErrors ?? RunSettings.defaultMaxErrors,
                        maxErrorRate: overrides.maxErrorRate ?? s.maxErrorRate),
                    arguments: arguments, pipeline: definition.name)
                settings.reportPerRun = true
                settings.allowDowngrade = overrides.allowDowngrade
                return settings
            }
            switch stage {
            case .importExports(let s):
                if overrides.dryRun { stages.append(.skipped("import")); continue }
                let paths = overrides.inputs ?? s.paths
                guard !paths.isEmpty else {
                    throw .usage("\(definition.path): stage import has no paths (give `paths:` or --input)")
                }
                var config = ImportConfiguration(
                    files: try ExportFiles.resolve(paths), deriver: deriver, skipImportedFiles: s.skipImportedFiles,
                    settings: settings(s))
                config.retryFiles = overrides.retryFiles || s.retryFiles
                stages.append(.importExports(config))
            case .derive(let s):
                var config = DeriveConfiguration(
                    selection: DeriveSelection(all: s.all, ids: s.ids, since: s.since, retryFailed: s.retryFailed),
                    deriver: deriver, settings: settings(s))
                config.maxChanges = s.maxChanges
                (config.settings.batchSeconds, config.settings.maxRate) = (s.batchSeconds, s.maxRate)
                config.settings.exitWhenPaused = s.exitWhenPaused
                config.settings.health = overrides.health.runPolicy(over: s.health)
                if let plan = s.applyPlan {
                    // A dry run previews nothing here: the plan's preview was the review.
                    stages.append(overrides.dryRun ? .skipped("derive") : .applyPlan(config, plan: plan))
                } else if s.dryRun {
                    stages.append(
                        .preview(
                            config, directory: s.previewOut ?? ChangeReport.defaultDirectory(forStore: store),
                            plan: s.plan))
                } else if overrides.dryRun {
                    // One preview per dry run: a pipeline that previews explicitly (a backfill)
                    // is not previewed a second time by its applying stage.
                    if hasPreviewStage {
                        stages.append(.skipped("derive"))
                        continue
                    }
                    config.settings.reportPath = nil
                    let base = s.previewOut ?? ChangeReport.defaultDirectory(forStore: store)
                    let directory = deriveStages > 1 ? base + "/stage-\(index + 1)" : base
                    stages.append(.preview(config, directory: directory, plan: nil))
                } else {
                    stages.append(.derive(config))
                }
            case .export(let s):
                if overrides.dryRun { stages.append(.skipped("export")); continue }
                let out = overrides.out ?? s.out
                guard ExportFileKind(path: out) != nil else {
                    throw .usage("\(definition.path): export output \(out) must end in .jsonl or .jsonl.zst")
                }
                var config = ExportConfiguration(
                    outPath: out, includeStale: s.allRecords, since: s.since,
                    deriver: deriver, arguments: arguments, pipeline: definition.name)
                config.allowEmpty = s.allowEmpty
                stages.append(.export(config))
            }
        }
        var resolved = ResolvedPipeline(
            name: definition.name, store: store,
            metricsFile: overrides.metricsFile ?? definition.metricsFile
                ?? reportsDir.map { $0 + "/\(definition.name).prom" }, stages: stages)
        resolved.keepReports = definition.keepReports
        resolved.stageNames = definition.stages.map(\.name)
        resolved.stageLabels = labels
        resolved.file = definition.path
        resolved.dryRun = overrides.dryRun
        for stage in definition.stages {
            guard case .derive(let s) = stage else { continue }
            resolved.storeNamedPaths.formUnion([s.previewOut, s.plan, s.applyPlan].compactMap { $0 })
        }
        if overrides.metricsFile == nil, let metrics = definition.metricsFile {
            resolved.storeNamedPaths.insert(metrics)
        }
        return resolved
    }
}

/// What a pipeline run did.
public struct PipelineOutcome: Sendable {
    /// The run reports of the stages that ran against the store, in order.
    public var reports: [RunReport]
    /// The previews of dry-run derive stages.
    public var previews: [ChangeReport]
    /// The pipeline's exit status: the first stopping stage's, else 3 when a stage skipped
    /// records, else 0.
    public var exitStatus: ExitStatus
    /// Every stage, in order, with how it ended, and the run's times.
    public var result: PipelineResult
    /// The store's figures after the last stage, read through the pipeline's own connection
    /// (for the metrics file's store gauges); nil for a dry run, a pipeline without a metrics
    /// file, or when no stage opened the store.
    public var storeFigures: MetricsFile.StoreFigures?
    /// The identity of the store the stages ran on (empty when none was opened), for names
    /// that carry it (`ResolvedPipeline.storeNamed`).
    public var storeID = ""

    /// The fault that stopped the pipeline, if one did (its stage's report in `reports` and
    /// `result` is a `RunReport.failure`).
    public var failure: RederiveError?

    /// The outcome of a pipeline that `error` stopped before its first stage (a busy or
    /// refused store): every stage not run, the error's status and reason.
    public static func notStarted(_ pipeline: ResolvedPipeline, failure error: RederiveError) -> PipelineOutcome {
        var result = PipelineResult(pipeline)
        result.exitStatus = error.exitStatus
        result.reason = error.description
        let report = RunReport.failure(command: "run", error: error)
        return PipelineOutcome(
            reports: [report], previews: [], exitStatus: error.exitStatus, result: result, failure: error)
    }
}

extension PipelineResult {
    /// The result of `pipeline` before it runs: every stage not run, exit 0.
    public init(_ pipeline: ResolvedPipeline) {
        let labels =
            pipeline.stageLabels.count == pipeline.stages.count
            ? pipeline.stageLabels : pipeline.stages.indices.map { "\($0)" }
        let names = pipeline.stageNames.count == pipeline.stages.count ? pipeline.stageNames : labels
        self.init(
            name: pipeline.name, file: pipeline.file, store: RecordStores.redacted(pipeline.store),
            dryRun: pipeline.dryRun, startedAt: Date(), finishedAt: Date(), exitStatus: .ok,
            stages: zip(names, labels).enumerated().map {
                .init(index: $0, name: $1.0, label: $1.1, outcome: .notRun)
            }, metricsFile: nil)
    }
}

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

extension ResolvedPipeline {
    /// How the first stage that touches the store opens it: an import may create it, a
    /// preview only reads it, a derive or export needs it to exist; nil when no stage runs.
    public var firstOpenMode: StoreOpenMode? {
        for stage in stages {
            switch stage {
            case .skipped: continue
            case .importExports: return .createIfMissing
            case .preview: return .readOnly
            case .derive, .applyPlan, .export: return .existing
            }
        }
        return nil
    }

    /// Checks every file and folder the stages will write (reports, previews, plans, outputs,
    /// metrics, and `extra`: what, path) before the store is opened: a bad path, or one that
    /// is the store, a side file of it, an import stage's input or one of `inputs` (the
    /// pipeline file), stops the pipeline with nothing done.
    public func checkOutputs(
        extra: [(what: String, path: String)] = [], inputs extraInputs: [String] = []
    ) throws(RederiveError) {
        var outputs = extra
        var inputs = extraInputs
        if let metricsFile { outputs.append(("metrics-file", metricsFile)) }
        for stage in stages {
            switch stage {
            case .importExports(let config):
                if let report = config.settings.reportPath { outputs.append(("report", report)) }
                inputs += config.files
            case .derive(let config):
                if let report = config.settings.reportPath { outputs.append(("report", report)) }
            case .applyPlan(let config, let plan):
                if let report = config.settings.reportPath { outputs.append(("report", report)) }
                inputs.append(plan)
            case .preview(let config, let directory, let plan):
                if let report = config.settings.reportPath { outputs.append(("report", report)) }
                try OutputPathCheck.writableFolder(directory, what: "preview-out")
                outputs += ChangeReport.files(inDirectory: directory).all.map { ("preview-out", $0) }
                if let plan { outputs.append(("plan", plan)) }
            case .export(let config):
                outputs.append(("out", config.outPath))
            case .skipped:
                break
            }
        }
        for (what, path) in outputs { try OutputPathCheck.writable(path, what: what) }
        try OutputPathCheck.distinct(outputs, store: store, inputs: inputs)
    }
}
