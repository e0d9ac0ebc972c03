import ArgumentParser
import Foundation
import RederiveCore

/// `rederive run`: run a pipeline file's stages in order.
struct Run: ParsableCommand, CreateDirsHelp {
    static let configuration = CommandConfiguration(
        abstract: "Run a pipeline file (Pipelines/*.yml): import, derive, export stages in order.",
        discussion: """
            A pipeline file carries a version, a name, the store, and a list of stages with \
            their options (see README "Pipeline files"). Flags given here override the file; \
            unknown keys or stages in the file are errors naming the file and line. A stage \
            that skipped records lets the pipeline go on (exit 3 at the end); the error budget \
            (4), a derive stage's max-changes guard (7), a signal (130/143) or a fatal error \
            stops it. A writing pipeline holds the store's run lock across its stages (exit 6 \
            when another writing run holds it; --wait SECONDS waits).

            Relative paths in the file (store, metrics-file, paths, report, preview-out, \
            plan, out) are relative to the file's folder; paths given here, to the working \
            directory. Issue reports get a per-run name (X-runN.jsonl), so the next run \
            never replaces them; every file written is logged. --json prints one document \
            for the whole pipeline (stages, counts, exit statuses, paths); --results-file \
            writes it too. A --dry-run leaves the metrics file alone.

            Examples:
              rederive run Pipelines/demo.yml
              rederive run Pipelines/nightly.yml --input /data/incoming \\
                --db /data/rooms.sqlite -o /data/summaries.jsonl.zst
              rederive run Pipelines/backfill.yml --db out/demo.sqlite --dry-run
              rederive run Pipelines/demo.yml --report out/reports/ --json
            """
    )

    @Argument(help: "The pipeline file.", completion: .file(extensions: ["yml", "yaml"]))
    var pipeline: String

    @Option(help: "The store (overrides the file's `store`).", completion: .file())
    var db: String?

    @Option(
        parsing: .upToNextOption, help: "Export files or directories for every import stage (overrides `paths`).",
        completion: .file(extensions: ["jsonl", "zst"]))
    var input: [String] = []

    @Option(
        name: .shortAndLong, help: "Output file for every export stage (overrides `out`).",
        completion: .file(extensions: ["jsonl", "zst"]))
    var out: String?

    /// Every stage's workers, batch size, error budget and `--allow-downgrade` (each overrides the file).
    @OptionGroup var tuning: BatchTuning

    @OptionGroup var locking: LockOptions

    @Flag(
        name: .customLong("dry-run"),
        help: "Preview only: derive stages write preview reports, import and export are skipped.")
    var dryRun = false

    @Option(
        help: ArgumentHelp(
            "Every import and derive stage's issue report (overrides `report`): a directory, or a file name.",
            discussion: "DIR gives DIR/PIPELINE-STAGE-issues.jsonl, X.jsonl gives X-STAGE.jsonl; each with -runN added."
        ),
        completion: .file())
    var report: String?

    @Option(
        name: .customLong("results-file"),
        help: "Also write the pipeline's results (the --json document) here, atomically.",
        completion: .file(extensions: ["json"]))
    var resultsFile: String?

    /// `--create-dirs`' help (the flag: `StoreCreation`).
    static let createDirsHelp =
        "Create the store's folder when it does not exist (the file's create-dirs covers only its own store)."

    @OptionGroup var creation: StoreCreation<Run>

    @Flag(
        name: .customLong("retry-files"),
        help: "Import stages read files that ended in a file fault before again (else skipped until they change).")
    var retryFiles = false

    /// Every derive stage's server-health settings (each overrides the stage's key of the same name).
    @OptionGroup var health: HealthOptions

    @OptionGroup var output: OutputOptions

    func run() throws {
        output.bootstrap()
        let status = CommandRunner.run {
            let definition = try PipelineDefinition.load(path: pipeline)
            var overrides = tuning.overrides
            overrides.store = db
            overrides.inputs = input.isEmpty ? nil : input
            overrides.out = out
            overrides.dryRun = dryRun
            overrides.metricsFile = output.metricsFile
            overrides.report = report
            overrides.retryFiles = retryFiles
            overrides.health = try health.settings()
            let resolved = try ResolvedPipeline.resolve(definition, overrides: overrides, arguments: commandLineText)
            try resolved.checkOutputs(extra: resultsFile.map { [("--results-file", $0)] } ?? [], inputs: [pipeline])
            // From here on every exit leaves its trace: results, metrics, the closing line.
            let outcome: PipelineOutcome
            do throws(RederiveError) {
                outcome = try execute(resolved, definition: definition)
            } catch {
                outcome = .notStarted(resolved, failure: error)
            }
            try leaveTrace(outcome, of: resolved)
            if let failure = outcome.failure { throw failure }
            // The reason for any exit but 0 is a line `--quiet` keeps (3 included).
            if let (level, line) = outcome.exitReason(pipeline: resolved.name) { logger.log(level: level, "\(line)") }
            return outcome.exitStatus
        }
        throw ExitCode(status)
    }

    /// Takes the lock and runs the stages; throws only what stops the pipeline before its
    /// first stage (a stage's fault ends up in the outcome).
    private func execute(
        _ resolved: ResolvedPipeline, definition: PipelineDefinition
    ) throws(RederiveError) -> PipelineOutcome {
        // A writing pipeline holds the store's run lock across its stages; a dry run only reads.
        // Whether the store may be opened is decided first: a refused one gets no lock.
        if let mode = resolved.firstOpenMode {
            // The file's `create-dirs` covers the store it names; a --db given here is
            // checked as typed (a typo in the cron line must not start a second store).
            if mode == .createIfMissing {
                try StoreFolderCheck.check(
                    resolved.store, createDirs: creation.createDirs || (db == nil && definition.createDirs),
                    how: db == nil ? "--create-dirs (or `create-dirs: true` in the pipeline file)" : "--create-dirs"
                )
            }
            try RecordStores.check(resolved.store, mode: mode)
        }
        let lock = dryRun ? nil : try locking.acquire(store: resolved.store)
        defer { lock?.release() }
        RunControl.installSignalHandlers()
        let shownStore = RecordStores.redacted(resolved.store)
        logger.info(
            "pipeline \(resolved.name): \(resolved.stages.count) stage(s) on \(shownStore)",
            metadata: ["pipeline": "\(resolved.name)", "store": "\(shownStore)"])
        let outcome = PipelineRunner.runToEnd(resolved) { level, line, metadata in
            logger.log(level: level, "\(line)", metadata: metadata.merging(["pipeline": "\(resolved.name)"]) { $1 })
        }
        for report in outcome.reports where report.status != .failed || report.isRecorded {
            output.logWritten(report)
        }
        return outcome
    }

    /// Writes what every run leaves, whatever its exit status: the metrics file (not for a dry
    /// run), `--json`, `--results-file` and the closing line. When the pipeline already
    /// failed, a file that cannot be written is logged and the pipeline's own status kept.
    private func leaveTrace(_ outcome: PipelineOutcome, of resolved: ResolvedPipeline) throws(RederiveError) {
        func attempt(_ body: () throws(RederiveError) -> Void) throws(RederiveError) {
            do { try body() } catch {
                guard outcome.failure == nil else { return logger.error("\(error)") }
                throw error
            }
        }
        var result = outcome.result
        if let metricsFile = resolved.metricsFile.map({ resolved.storeNamed($0, storeID: outcome.storeID) }) {
            if resolved.dryRun {
                // A dry run's figures would replace the real run's: leave the file alone.
                logger.info("metrics file \(metricsFile) left unchanged (dry run)")
            } else {
                let labels = result.stages.compactMap { stage in
                    if case .ran = stage.outcome { stage.label } else { nil }
                }
                try attempt { () throws(RederiveError) in
                    try MetricsFile.write(
                        outcome.reports, pipeline: resolved.name, to: metricsFile,
                        labels: labels.count == outcome.reports.count ? labels : nil,
                        store: outcome.storeFigures, succeeded: outcome.exitStatus.isSuccess)
                    result.metricsFile = metricsFile
                    logger.info("metrics written to \(metricsFile)", metadata: ["metrics": "\(metricsFile)"])
                }
            }
        }
        if output.json { print(result.json()) }
        if let resultsFile {
            try attempt { () throws(RederiveError) in
                try result.write(to: resultsFile)
                logger.info("results written to \(resultsFile)", metadata: ["results": "\(resultsFile)"])
            }
        }
        logger.info(
            "pipeline \(resolved.name): exit \(outcome.exitStatus)",
            metadata: [
                "pipeline": "\(resolved.name)", "exit": .stringConvertible(Int(outcome.exitStatus.rawValue)),
            ])
    }
}
