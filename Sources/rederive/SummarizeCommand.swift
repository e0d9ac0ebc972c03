import ArgumentParser
import Foundation
import RederiveCore

/// `rederive summarize`: derive summaries straight from exports, without a store.
struct Summarize: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stream exports and print one summary per good record (JSON Lines).",
        discussion: """
            Reads *.jsonl and *.jsonl.zst exports (directories are searched for them; - reads \
            one export from standard input, plain or zstd, recognised by its first bytes), \
            upgrades every record to the current format, derives its summary on concurrent \
            workers and prints one JSON object per good record, in input order, on standard \
            output (or to --out FILE; --out - is standard output too). Corrupt records are \
            skipped and written to the report; a one-line tally goes to stderr.

            Examples:
              rederive summarize Fixtures/exports -o out/s.jsonl.zst --report out/i.jsonl
              zstd -dc rooms.jsonl.zst | rederive summarize - > summaries.jsonl

            Exit status: 0 all good, 3 finished with skipped records, 1 usage error, 2 fatal I/O.
            """
    )

    @Argument(help: "Export files (*.jsonl, *.jsonl.zst), directories holding them, or - for standard input.",
              completion: .file(extensions: ["jsonl", "zst"]))
    var paths: [String]

    @Option(name: .shortAndLong, help: "Write the summaries here (.jsonl or .jsonl.zst; - for stdout, the default).",
            completion: .file(extensions: ["jsonl", "zst"]))
    var out: String?

    @Option(help: "Write the per-record error report here (JSON Lines, sorted by file then line).",
            completion: .file(extensions: ["jsonl"]))
    var report: String?

    @Option(name: .customLong("workers"), parsing: .unconditional, help: "Concurrent workers (default: number of cores).")
    var workersOption: Int?

    /// `--workers`, or the number of cores.
    var workers: Int { workersOption ?? ProcessInfo.processInfo.activeProcessorCount }

    /// `--out`, with `-` (standard output) as nil.
    private var outPath: String? { out == StandardInputExport.dash ? nil : out }

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard workers >= 1 else { throw ValidationError("--workers must be at least 1") }
        if output.json && outPath == nil { throw ValidationError("--json needs --out: the summaries themselves go to stdout otherwise") }
        if let out = outPath, !(out.hasSuffix(".jsonl") || out.hasSuffix(".jsonl.zst")) {
            throw ValidationError("--out must end in .jsonl or .jsonl.zst")
        }
    }

    func run() throws {
        output.bootstrap()
        let status = CommandRunner.run {
            let input = try StandardInputExport.resolve(paths)
            let files = try ExportFiles.resolve(input.paths)
            let config = SummarizeConfiguration(files: files, workers: workers, outPath: outPath, reportPath: report)
            defer { withExtendedLifetime(input.spool) {} }
            let (outcome, report) = try SummarizeJob.run(config)
            if output.json || output.metricsFile != nil {
                let run = RunReport(
                    runID: 0, command: "summarize", status: .completed, exitStatus: outcome.exitStatus,
                    statistics: outcome.statistics, counts: [("summarized", outcome.statistics.recordsDone)],
                    issuesByCode: outcome.issuesByCode, newFailures: 0, summaryVersion: SummaryDeriver.currentVersion,
                    fingerprint: SummaryDeriver().fingerprint, resumedFrom: nil, stopReason: nil)
                if output.json { print(run.json()) }
                if let metricsFile = output.metricsFile { try MetricsFile.write([run], pipeline: nil, to: metricsFile) }
            }
            logger.info("\(outcome.statistics.tallyLine(command: "summarize", doneWord: "summarized", issues: report.codeSummary))")
            return outcome.exitStatus
        }
        throw ExitCode(status)
    }
}
