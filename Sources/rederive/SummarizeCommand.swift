import ArgumentParser
import Foundation
import RederiveCore

/// `rederive summarize`: derive summaries straight from exports, without a store.
struct Summarize: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stream exports and print one summary per good record (JSON Lines).",
        discussion: """
            Reads *.jsonl and *.jsonl.zst exports (directories are searched for them), upgrades
            every record to the current format, derives its summary on concurrent workers and
            prints one JSON object per good record, in input order. Corrupt records are skipped
            and written to the report; a one-line tally goes to stderr.

            Example:
              rederive summarize Fixtures/exports --out summaries.jsonl.zst --report issues.jsonl

            Exit status: 0 all good, 3 finished with skipped records, 1 usage error, 2 fatal I/O,
            130/143 stopped by SIGINT/SIGTERM (nothing left at --out).
            """
    )

    @Argument(help: "Export files (*.jsonl, *.jsonl.zst) or directories holding them.")
    var paths: [String]

    @Option(help: "Write the summaries here (.jsonl or .jsonl.zst) instead of stdout.")
    var out: String?

    @Option(help: "Write the per-record error report here (JSON Lines, sorted by file then line).")
    var report: String?

    @Option(help: "Concurrent workers (default: number of cores).")
    var workers: Int?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let workers, workers < 1 { throw ValidationError("--workers must be at least 1") }
        if output.json && out == nil { throw ValidationError("--json needs --out: the summaries themselves go to stdout otherwise") }
        if let out, !(out.hasSuffix(".jsonl") || out.hasSuffix(".jsonl.zst")) {
            throw ValidationError("--out must end in .jsonl or .jsonl.zst")
        }
    }

    func run() throws {
        output.bootstrap()
        let status = CommandRunner.run {
            let files = try ExportFiles.resolve(paths)
            let config = SummarizeConfiguration(files: files, workers: workers ?? RunSettings.defaultWorkers, outPath: out, reportPath: report)
            // A signal stops the run cleanly: no partial output is left at --out.
            RunControl.installSignalHandlers()
            return try output.finish([try SummarizeJob.run(config)])
        }
        throw ExitCode(status)
    }
}
