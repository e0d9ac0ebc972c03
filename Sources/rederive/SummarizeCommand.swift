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
            skipped and written to the report; a one-line tally goes to stderr. --svg-dir DIR \
            also writes a plan-view drawing of every good record there (ID.svg; ids that are \
            not safe file names are cleaned and given a hash suffix).

            Examples:
              rederive summarize Fixtures/exports -o out/s.jsonl.zst --report out/i.jsonl
              zstd -dc rooms.jsonl.zst | rederive summarize - > summaries.jsonl
              rederive summarize Fixtures/exports -o out/s.jsonl --svg-dir out/drawings

            Exit status: 0 all good, 3 finished with skipped records, 4 aborted by the error \
            budget (--max-errors, default \(RunSettings.defaultMaxErrors), or --max-error-rate; \
            nothing left at --out), 1 usage error, 2 fatal I/O, 130/143 stopped by \
            SIGINT/SIGTERM (nothing left at --out).
            """
    )

    @Argument(
        help: "Export files (*.jsonl, *.jsonl.zst), directories holding them, or - for standard input.",
        completion: .file(extensions: ["jsonl", "zst"]))
    var paths: [String]

    @Option(
        name: .shortAndLong, help: "Write the summaries here (.jsonl or .jsonl.zst; - for stdout, the default).",
        completion: .file(extensions: ["jsonl", "zst"]))
    var out: String?

    @OptionGroup var reporting: ReportOption

    @Option(
        name: .customLong("svg-dir"), help: "Also write a plan-view drawing (SVG) of every good record here.",
        completion: .directory)
    var svgDir: String?

    @Option(parsing: .unconditional, help: "Concurrent workers (default: number of cores).")
    var workers: Int?

    @OptionGroup var budget: ErrorBudgetOptions

    /// `--out`, with `-` (standard output) as nil.
    private var outPath: String? { out == StandardInputExport.dash ? nil : out }

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let workers, workers < 1 { throw ValidationError("--workers must be at least 1") }
        if output.json && outPath == nil {
            throw ValidationError("--json needs --out: the summaries themselves go to stdout otherwise")
        }
        if let out = outPath, ExportFileKind(path: out) == nil {
            throw ValidationError("--out must end in .jsonl or .jsonl.zst")
        }
    }

    func run() throws {
        output.bootstrap()
        let status = CommandRunner.run(tracing: output, command: "summarize") {
            try output.checkOutputs([("--out", outPath), ("--report", reporting.report)])
            if let svgDir { try OutputPathCheck.writableFolder(svgDir, what: "--svg-dir") }
            let input = try StandardInputExport.resolve(paths)
            let files = try ExportFiles.resolve(input.paths)
            try output.checkOutputs([("--out", outPath), ("--report", reporting.report)], inputs: files)
            defer { withExtendedLifetime(input.spool) {} }
            let config = SummarizeConfiguration(
                files: files, workers: workers ?? RunSettings.defaultWorkers,
                outPath: outPath, reportPath: reporting.report, svgDirectory: svgDir, control: budget.control)
            // A signal stops the run cleanly: no partial output is left at --out.
            RunControl.installSignalHandlers()
            return try output.finish([try SummarizeJob.run(config)])
        }
        throw ExitCode(status)
    }
}
