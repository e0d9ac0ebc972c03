import ArgumentParser
import Foundation
import RederiveCore

/// `rederive run`: run a pipeline file's stages in order.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a pipeline file (Pipelines/*.yml): import, derive, export stages in order.",
        discussion: """
            A pipeline file carries a version, a name, the store, and a list of stages with \
            their options (see README "Pipeline files"). Flags given here override the file; \
            unknown keys or stages in the file are errors naming the file and line. A stage \
            that skipped records lets the pipeline go on (exit 3 at the end); the error budget \
            (4), a signal (130/143) or a fatal error stops it.

            Examples:
              rederive run Pipelines/demo.yml
              rederive run Pipelines/nightly.yml --input /data/incoming \\
                --db /data/rooms.sqlite -o /data/summaries.jsonl.zst
              rederive run Pipelines/backfill.yml --db out/demo.sqlite --dry-run
            """
    )

    @Argument(help: "The pipeline file.", completion: .file(extensions: ["yml", "yaml"]))
    var pipeline: String

    @Option(help: "The store (overrides the file's `store`).", completion: .file())
    var db: String?

    @Option(parsing: .upToNextOption, help: "Export files or directories for every import stage (overrides `paths`).",
            completion: .file(extensions: ["jsonl", "zst"]))
    var input: [String] = []

    @Option(name: .shortAndLong, help: "Output file for every export stage (overrides `out`).",
            completion: .file(extensions: ["jsonl", "zst"]))
    var out: String?

    /// Every stage's workers, batch size and error budget (each overrides the file).
    @OptionGroup var tuning: BatchTuning

    @Flag(name: .customLong("allow-downgrade"),
          help: "Overwrite summaries a newer rederive derived (default: leave them, counted as newer).")
    var allowDowngrade = false

    @OptionGroup var locking: LockOptions

    @Flag(name: .customLong("dry-run"), help: "Preview only: derive stages write preview reports, import and export are skipped.")
    var dryRun = false

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
            overrides.allowDowngrade = allowDowngrade
            overrides.metricsFile = output.metricsFile
            let resolved = try ResolvedPipeline.resolve(definition, overrides: overrides, arguments: commandLineText)
            // A writing pipeline holds the store's run lock across its stages; a dry run only reads.
            let lock = dryRun ? nil : try locking.acquire(store: resolved.store)
            defer { lock?.release() }
            RunControl.installSignalHandlers()
            logger.info("pipeline \(resolved.name): \(resolved.stages.count) stage(s) on \(resolved.store)")
            let outcome = try PipelineRunner.run(resolved) { line in logger.info("\(line)") }
            for report in outcome.reports where output.json { print(report.json()) }
            for preview in outcome.previews where output.json { print(preview.json(pretty: false)) }
            if let metricsFile = resolved.metricsFile {
                try MetricsFile.write(outcome.reports, pipeline: resolved.name, to: metricsFile)
            }
            logger.info("pipeline \(resolved.name): exit \(outcome.exitStatus)")
            return outcome.exitStatus
        }
        throw ExitCode(status)
    }
}
