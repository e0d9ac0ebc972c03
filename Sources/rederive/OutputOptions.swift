import ArgumentParser
import Foundation
import Logging
import RederiveCore
import Synchronization

/// The metrics file once the command's output checks accepted it: from then on a failing
/// run may (and must) write it too. Before, a usage error may be about that very path.
private let checkedMetricsFile = Mutex<String?>(nil)

extension LogFormat: ExpressibleByArgument {}

/// Logging and output options every batch command shares (`LogOptions` and the run's outputs).
struct OutputOptions: ParsableArguments {
    /// `--log-format`, `--quiet`, `--verbose`: what every command takes.
    @OptionGroup var log: LogOptions

    var logFormat: LogFormat { log.logFormat }
    var verbose: Bool { log.verbose }
    var quiet: Bool { log.quiet }

    @Option(
        name: .customLong("metrics-file"),
        help: "Write the run's figures here in the Prometheus text format (atomically).",
        completion: .file(extensions: ["prom"]))
    var metricsFile: String?

    @Flag(help: "Print a machine-readable run summary (JSON) on stdout.")
    var json = false

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
        Self.metricsFileChecked(metricsFile)
    }

    /// Records that `path` (a command's or a pipeline's metrics file) passed the output checks.
    static func metricsFileChecked(_ path: String?) {
        checkedMetricsFile.withLock { $0 = path }
    }

    /// Leaves the trace of a command that `error` ended after its configuration was read: the
    /// `--json` document (status `failed`, the exit status, the reason) and, once its path was
    /// checked, the metrics file (exit status, last run; the last success kept). The error's
    /// own line is `CommandRunner`'s.
    func trace(failure error: RederiveError, command: String) {
        let report = RunReport.failure(command: command, error: error)
        if json { print(report.json()) }
        guard let metricsFile = checkedMetricsFile.withLock({ $0 }) else { return }
        do {
            try MetricsFile.write([report], pipeline: nil, to: metricsFile)
            logger.info("metrics written to \(metricsFile)", metadata: ["metrics": "\(metricsFile)"])
        } catch {
            logger.error("\(error)")
        }
    }

    /// Installs the log handler; call once, first thing in `run()`.
    func bootstrap() { log.bootstrap() }

    /// Logs the run's tally (with its figures as typed metadata), its warnings and the
    /// files it wrote, prints `--json`, writes `--metrics-file` (with the figures of `store`,
    /// the store the command has open, when given); returns the exit status.
    func finish(
        _ reports: [RunReport], pipeline: String? = nil, store: (any StoreInspector)? = nil
    ) throws(RederiveError) -> ExitStatus {
        for report in reports {
            if json { print(report.json()) }
            logger.info("\(report.tallyLine())", metadata: report.logMetadata)
            for warning in report.warnings { logger.warning("\(warning)", metadata: ["command": "\(report.command)"]) }
            logWritten(report)
            // The reason for a non-zero exit is never only in the (info) tally line: `--quiet` keeps it.
            if let (level, line) = report.exitReason { logger.log(level: level, "\(line)") }
        }
        if let metricsFile {
            try MetricsFile.write(
                reports, pipeline: pipeline, to: metricsFile,
                store: store.flatMap { MetricsFile.StoreFigures.read(from: $0) })
            logger.info("metrics written to \(metricsFile)", metadata: ["metrics": "\(metricsFile)"])
        }
        return reports.last?.exitStatus ?? .ok
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
