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
    /// `--allow-downgrade` for every derive and import stage.
    public var allowDowngrade = false

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

    /// Resolves `definition` with `overrides` (flag > file > default).
    public static func resolve(_ definition: PipelineDefinition, overrides: PipelineOverrides,
                               deriver: SummaryDeriver = SummaryDeriver(),
                               arguments: String) throws(RederiveError) -> ResolvedPipeline {
        try overrides.validate()
        guard let store = overrides.store ?? definition.store else {
            throw .usage("\(definition.path): no store: give --db or a `store:` key")
        }
        var stages: [Stage] = []
        let deriveStages = definition.stages.filter { if case .derive = $0 { true } else { false } }.count
        let hasPreviewStage = definition.stages.contains { if case .derive(let s) = $0 { s.dryRun } else { false } }
        for stage in definition.stages {
            switch stage {
            case .importExports(let s):
                if overrides.dryRun { stages.append(.skipped("import")); continue }
                let paths = overrides.inputs ?? s.paths
                guard !paths.isEmpty else { throw .usage("\(definition.path): stage import has no paths (give `paths:` or --input)") }
                var importConfig = ImportConfiguration(
                    files: try ExportFiles.resolve(paths),
                    workers: overrides.workers ?? s.workers ?? definition.workers ?? RunSettings.defaultWorkers,
                    batchSize: overrides.batchSize ?? s.batchSize ?? definition.batchSize ?? RunSettings.defaultBatchSize,
                    reportPath: s.report, deriver: deriver,
                    control: RunControl(maxErrors: overrides.maxErrors ?? s.maxErrors,
                                        maxErrorRate: overrides.maxErrorRate ?? s.maxErrorRate),
                    skipImportedFiles: s.skipImportedFiles, arguments: arguments, pipeline: definition.name)
                importConfig.settings.allowDowngrade = overrides.allowDowngrade
                stages.append(.importExports(importConfig))
            case .derive(let s):
                var config = DeriveConfiguration(
                    selection: DeriveSelection(all: s.all, ids: s.ids, since: s.since, retryFailed: s.retryFailed),
                    workers: overrides.workers ?? s.workers ?? definition.workers ?? RunSettings.defaultWorkers,
                    batchSize: overrides.batchSize ?? s.batchSize ?? definition.batchSize ?? RunSettings.defaultBatchSize,
                    reportPath: s.report, deriver: deriver,
                    control: RunControl(maxErrors: overrides.maxErrors ?? s.maxErrors,
                                        maxErrorRate: overrides.maxErrorRate ?? s.maxErrorRate),
                    arguments: arguments, pipeline: definition.name)
                config.maxChanges = s.maxChanges
                config.settings.allowDowngrade = overrides.allowDowngrade
                if s.dryRun {
                    stages.append(.preview(config, directory: s.previewOut ?? ChangeReport.defaultDirectory(forStore: store),
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
                    let directory = deriveStages > 1 ? base + "/stage-\(stages.count + 1)" : base
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
                stages.append(.export(ExportConfiguration(outPath: out, includeStale: s.allRecords, since: s.since,
                                                          deriver: deriver, arguments: arguments, pipeline: definition.name)))
            }
        }
        return ResolvedPipeline(name: definition.name, store: store,
                                metricsFile: overrides.metricsFile ?? definition.metricsFile, stages: stages)
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
    public var exitStatus: Int32
}

/// Runs a resolved pipeline's stages in order against one store. A stage that skipped
/// records (exit 3) lets the pipeline go on; a stage stopped by the error budget (4) or a
/// signal (130/143) stops it; a fatal error throws.
public enum PipelineRunner {
    /// Runs `pipeline`; `log` receives each stage's tally line as it finishes.
    public static func run(_ pipeline: ResolvedPipeline, log: (String) -> Void) throws(RederiveError) -> PipelineOutcome {
        var outcome = PipelineOutcome(reports: [], previews: [], exitStatus: 0)
        var store: Store?
        defer { store?.close() }
        // Only an import may create the store: a derive or export on a missing (mistyped)
        // store is a usage error, not an empty success.
        func writable(mayCreate: Bool = false) throws(RederiveError) -> Store {
            if let store { return store }
            if !mayCreate, !FileManager.default.fileExists(atPath: pipeline.store) {
                throw .usage("\(pipeline.store): no such store (an import stage or `rederive import` creates one)")
            }
            let opened = try Store(path: pipeline.store)
            store = opened
            return opened
        }
        for stage in pipeline.stages {
            let report: RunReport
            switch stage {
            case .skipped(let name):
                log("\(name): skipped (--dry-run)")
                continue
            case .preview(let config, let directory, let planPath):
                // A preview reads through its own read-only connection: it writes nothing.
                let readOnly = try Store(path: pipeline.store, readOnly: true)
                defer { readOnly.close() }
                let preview = try DeriveJob.preview(config, store: readOnly)
                try preview.write(toDirectory: directory)
                outcome.previews.append(preview)
                log(preview.tallyLine() + "; preview in \(directory)/")
                if let planPath {
                    try DeriveJob.plan(preview, config: config, store: readOnly).write(to: planPath)
                    log("plan written to \(planPath): apply it with `rederive derive --db \(pipeline.store) --apply-plan \(planPath)`")
                }
                if preview.exitStatus != 0 { outcome.exitStatus = preview.exitStatus }
                continue
            case .importExports(let config):
                report = try ImportJob.run(config, store: try writable(mayCreate: true))
            case .derive(let config):
                report = try DeriveJob.run(config, store: try writable())
            case .export(let config):
                report = try ExportJob.run(config, store: try writable())
            }
            outcome.reports.append(report)
            log(report.tallyLine())
            let status = report.exitStatus
            if status == 3 {
                outcome.exitStatus = 3
            } else if status != 0 {
                outcome.exitStatus = status
                break
            }
        }
        return outcome
    }
}
