import ArgumentParser
import Foundation
import Logging
import RederiveCore

/// Tuning every batch command shares, and `run` applies to each stage (a flag overrides
/// the pipeline file), with `--allow-downgrade`. Optional so "not given" is visible; the
/// defaults live in `RunSettings`, and the rules in `PipelineOverrides.validate()`, the same
/// for files.
struct BatchTuning: ParsableArguments {
    @Option(parsing: .unconditional, help: "Concurrent workers (default: number of cores).")
    var workers: Int?

    @Option(
        name: .customLong("batch-size"), parsing: .unconditional,
        help: "Records per batch: one transaction each (default: \(RunSettings.defaultBatchSize)).")
    var batchSize: Int?

    @OptionGroup var budget: ErrorBudgetOptions

    @Flag(
        name: .customLong("allow-downgrade"),
        help: "Overwrite summaries a newer rederive derived (default: leave them, counted as newer).")
    var allowDowngrade = false

    /// The values as pipeline overrides.
    var overrides: PipelineOverrides {
        var o = PipelineOverrides()
        o.workers = workers
        o.batchSize = batchSize
        o.maxErrors = budget.maxErrors
        o.maxErrorRate = budget.maxErrorRate
        o.allowDowngrade = allowDowngrade
        return o
    }

    func validate() throws { try overrides.validateAsFlags() }

    var control: RunControl { budget.control }

    /// Run settings: flags where given, `RunSettings` defaults otherwise.
    func settings(report: String?, arguments: String) -> RunSettings {
        var settings = RunSettings(
            workers: workers ?? RunSettings.defaultWorkers, batchSize: batchSize ?? RunSettings.defaultBatchSize,
            reportPath: report, control: control, arguments: arguments)
        settings.allowDowngrade = allowDowngrade
        return settings
    }
}

/// The store and report of a batch command, with its tuning.
struct BatchOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The store: a SQLite file, or postgres://user@host:port/dbname (a store written by a newer rederive "
                + "is refused)."), completion: .file())
    var db: String

    @OptionGroup var reporting: ReportOption

    /// `--report`.
    var report: String? { reporting.report }

    @OptionGroup var tuning: BatchTuning

    /// `--allow-downgrade`.
    var allowDowngrade: Bool { tuning.allowDowngrade }

    /// Run settings for this command line.
    var settings: RunSettings { tuning.settings(report: report, arguments: commandLineText) }
}

/// `--wait`: how a writing command meets another writing run on the same store.
struct LockOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: "Wait up to SECONDS for another writing run on the store to finish (default: fail at once, exit 6).")
    var wait: Double = 0

    func validate() throws {
        // NaN passes `< 0` and never times out; infinity would wait forever.
        guard wait.isFinite, wait >= 0 else { throw ValidationError("--wait must be a number of seconds, 0 or more") }
    }

    /// Takes the store's run lock for this command line (held until the returned lock is released).
    /// A PostgreSQL store has none: its processes coordinate in the database (derive ranges).
    func acquire(store: String) throws(RederiveError) -> RunLock? {
        guard StoreLocation(store).holdsRunLockFile else { return nil }
        return try RunLock.acquire(store: store, command: "rederive " + commandLineText, wait: wait, log: logger)
    }
}
