import Foundation

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
            func settings(_ s: BatchStageOptions) -> RunSettings {
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
                (settings.batchSeconds, settings.maxRate) = (s.batchSeconds, s.maxRate)
                settings.exitWhenPaused = s.exitWhenPaused
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
                    settings: settings(s.batch))
                config.retryFiles = overrides.retryFiles || s.retryFiles
                stages.append(.importExports(config))
            case .derive(let s):
                var config = DeriveConfiguration(
                    selection: DeriveSelection(all: s.all, ids: s.ids, since: s.since, retryFailed: s.retryFailed),
                    deriver: deriver, settings: settings(s.batch))
                config.maxChanges = s.maxChanges
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
