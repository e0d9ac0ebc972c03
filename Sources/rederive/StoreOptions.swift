import ArgumentParser
import Foundation
import RederiveCore

/// Options shared by the commands that run batches against the store.
struct BatchOptions: ParsableArguments {
    @Option(help: "The SQLite store (created when absent).")
    var db: String

    @Option(help: "Concurrent workers (default: number of cores).")
    var workers: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(name: .customLong("batch-size"), help: "Records per batch: one transaction each.")
    var batchSize: Int = 500

    @Option(help: "Write the per-record error report here (JSON Lines, sorted by file then line).")
    var report: String?

    @Option(name: .customLong("max-errors"), help: "Abort (exit 4) once more than N records were skipped.")
    var maxErrors: Int?

    @Option(name: .customLong("max-error-rate"), help: "Abort (exit 4) once more than this share (0-1) of records were skipped.")
    var maxErrorRate: Double?

    @Flag(help: "Print a machine-readable run summary (JSON) on stdout.")
    var json = false

    @Flag(help: "Print no tally line on stderr.")
    var quiet = false

    func validate() throws {
        guard workers >= 1 else { throw ValidationError("--workers must be at least 1") }
        guard batchSize >= 1 else { throw ValidationError("--batch-size must be at least 1") }
        if let maxErrors, maxErrors < 0 { throw ValidationError("--max-errors must not be negative") }
        if let maxErrorRate, !(0...1).contains(maxErrorRate) { throw ValidationError("--max-error-rate must be between 0 and 1") }
    }

    var control: RunControl { RunControl(maxErrors: maxErrors, maxErrorRate: maxErrorRate) }

    /// Prints the run's outcome and returns its exit status.
    func finish(_ report: RunReport) -> Int32 {
        if json { print(report.json()) }
        if !quiet { CommandRunner.printError(report.tallyLine()) }
        return report.exitStatus
    }
}

/// The command line as typed, for the run history.
var commandLineText: String { CommandLine.arguments.dropFirst().joined(separator: " ") }
