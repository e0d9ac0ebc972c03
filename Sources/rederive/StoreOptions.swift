import ArgumentParser
import Foundation
import Logging
import RederiveCore

extension LogFormat: ExpressibleByArgument {}

/// Logging and output options every command shares.
struct OutputOptions: ParsableArguments {
    @Option(name: .customLong("log-format"), help: "Log lines on stderr as human (default) or json (for log shippers).")
    var logFormat: LogFormat = .human

    @Flag(name: .shortAndLong, help: "Log debug details (files read, batches committed).")
    var verbose = false

    @Flag(name: .shortAndLong, help: "Log only warnings and errors (no tally line, no progress line).")
    var quiet = false

    @Option(name: .customLong("metrics-file"), help: "Write the run's figures here in the Prometheus text format (atomically).",
            completion: .file(extensions: ["prom"]))
    var metricsFile: String?

    @Flag(help: "Print a machine-readable run summary (JSON) on stdout.")
    var json = false

    func validate() throws {
        if verbose && quiet { throw ValidationError("--verbose and --quiet cannot be combined") }
    }

    /// Installs the log handler; call once, first thing in `run()`.
    func bootstrap() {
        StderrLogHandler.bootstrap(format: logFormat, level: quiet ? .warning : verbose ? .debug : .info)
        ProgressLine.isSuppressed = quiet
    }

    /// Logs the run's tally, prints `--json`, writes `--metrics-file`; returns the exit status.
    func finish(_ reports: [RunReport], pipeline: String? = nil) throws(RederiveError) -> Int32 {
        for report in reports {
            if json { print(report.json()) }
            logger.info("\(report.tallyLine())", metadata: [
                "run": "\(report.runID)", "command": "\(report.command)", "status": "\(report.status.rawValue)",
                "exit": "\(report.exitStatus)",
            ])
        }
        if let metricsFile { try MetricsFile.write(reports, pipeline: pipeline, to: metricsFile) }
        return reports.last?.exitStatus ?? 0
    }
}

/// The CLI's logger.
let logger = Logger(label: "rederive")

/// Options shared by the commands that run batches against the store.
struct BatchOptions: ParsableArguments {
    @Option(help: "The SQLite store (a store written by a newer rederive is refused).", completion: .file())
    var db: String

    @Option(name: .customLong("workers"), parsing: .unconditional, help: "Concurrent workers (default: number of cores).")
    var workersOption: Int?

    /// `--workers`, or the number of cores.
    var workers: Int { workersOption ?? ProcessInfo.processInfo.activeProcessorCount }

    @Option(name: .customLong("batch-size"), parsing: .unconditional, help: "Records per batch: one transaction each.")
    var batchSize: Int = 500

    @Option(help: "Write the per-record error report here (JSON Lines, sorted by file then line).",
            completion: .file(extensions: ["jsonl"]))
    var report: String?

    @Option(name: .customLong("max-errors"), parsing: .unconditional, help: "Abort (exit 4) once more than N records were skipped.")
    var maxErrors: Int?

    @Option(name: .customLong("max-error-rate"), parsing: .unconditional, help: "Abort (exit 4) once more than this share (0-1) of records were skipped.")
    var maxErrorRate: Double?

    func validate() throws {
        guard workers >= 1 else { throw ValidationError("--workers must be at least 1") }
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1") }
        if let maxErrors, maxErrors < 0 { throw ValidationError("--max-errors must not be negative") }
        if let maxErrorRate, !(0...1).contains(maxErrorRate) { throw ValidationError("--max-error-rate must be between 0 and 1") }
    }

    var control: RunControl { RunControl(maxErrors: maxErrors, maxErrorRate: maxErrorRate) }
}

/// The command line as typed, for the run history.
var commandLineText: String { CommandLine.arguments.dropFirst().joined(separator: " ") }
