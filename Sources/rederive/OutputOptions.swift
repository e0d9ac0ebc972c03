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

    @Option(
        name: .customLong("metrics-file"),
        help: "Write the run's figures here in the Prometheus text format (atomically).",
        completion: .file(extensions: ["prom"]))
    var metricsFile: String?

    @Flag(help: "Print a machine-readable run summary (JSON) on stdout.")
    var json = false

    func validate() throws {
        if verbose && quiet { throw ValidationError("--verbose and --quiet cannot be combined") }
    }

    /// Checks that the metrics file and `files` (what: path) can be written, and that none
    /// of them is one of `stores` (or their side files) or `inputs`, before the command
    /// opens or creates its store: a bad path stops it with nothing touched.
    func checkOutputs(
        _ files: [(String, String?)] = [], stores: [String] = [], inputs: [String] = []
    ) throws(RederiveError) {
        var outputs: [(what: String, path: String)] = []
        if let metricsFile { outputs.append(("--metrics-file", metricsFile)) }
        for case let (what, path?) in files { outputs.append((what, path)) }
        for (what, path) in outputs { try OutputPathCheck.writable(path, what: what) }
        for store in stores { try OutputPathCheck.distinct(outputs, store: store, inputs: inputs) }
        if stores.isEmpty { try OutputPathCheck.distinct(outputs, store: nil, inputs: inputs) }
    }

    /// Installs the log handler; call once, first thing in `run()`.
    func bootstrap() {
        StderrLogHandler.bootstrap(format: logFormat, level: quiet ? .warning : verbose ? .debug : .info)
        ProgressLine.isSuppressed = quiet
    }

    /// Logs the run's tally (with its figures as typed metadata), its warnings and the
    /// files it wrote, prints `--json`, writes `--metrics-file` (with the figures of `store`,
    /// the store the command has open, when given); returns the exit status.
    func finish(
        _ reports: [RunReport], pipeline: String? = nil, store: (any StoreInspector)? = nil
    ) throws(RederiveError) -> Int32 {
        for report in reports {
            if json { print(report.json()) }
            logger.info("\(report.tallyLine())", metadata: report.logMetadata)
            for warning in report.warnings { logger.warning("\(warning)", metadata: ["command": "\(report.command)"]) }
            logWritten(report)
        }
        if let metricsFile {
            try MetricsFile.write(
                reports, pipeline: pipeline, to: metricsFile,
                store: store.flatMap { MetricsFile.StoreFigures.read(from: $0) })
            logger.info("metrics written to \(metricsFile)", metadata: ["metrics": "\(metricsFile)"])
        }
        return reports.last?.exitStatus ?? 0
    }

    /// Logs where the run's issue report and output went.
    func logWritten(_ report: RunReport) {
        if let path = report.reportPath {
            logger.info("issue report written to \(path)", metadata: ["report": "\(path)"])
        }
        if let path = report.outputPath {
            logger.info("output written to \(path)", metadata: ["output": "\(path)"])
        }
    }
}
