import Foundation

/// The settings every batch run shares, whatever its job: parallelism, batch size, the
/// issue report, the error budget and how the run is recorded. Each setting's default is
/// named here once; the CLI's option groups and pipeline files resolve into this value.
public struct RunSettings: Sendable {
    /// Workers when none are given: one per core.
    public static var defaultWorkers: Int { ProcessInfo.processInfo.activeProcessorCount }
    /// Records per batch (one transaction each) when none is given.
    public static let defaultBatchSize = 500
    /// The error budget when none is given (`--max-errors`): a run stops (exit 4) once more
    /// records than this were skipped, so a tiny file of bad lines (107 bytes of zstd hold
    /// 500,000 of them) cannot write gigabytes of report and failure ledger. A larger
    /// `--max-errors` lifts it.
    public static let defaultMaxErrors = 10_000

    /// Concurrent workers (at least 1).
    public var workers: Int
    /// Records per batch: one transaction each (at least 1).
    public var batchSize: Int
    /// Error report path (JSON Lines), if any.
    public var reportPath: String?
    /// Error budget (and signal handling).
    public var control: RunControl
    /// The command line, for the run history.
    public var arguments: String
    /// The pipeline that started this run, if any.
    public var pipeline: String?
    /// Show a progress line (only honoured when stderr is a terminal).
    public var showProgress: Bool
    /// Overwrite summaries a newer rederive derived (`--allow-downgrade`; recorded in the
    /// run history). Off: they are left untouched and counted as `newer`.
    public var allowDowngrade = false
    /// Give the issue report a per-run name (`issues.jsonl` → `issues-1a2b3c4d-run12.jsonl`:
    /// the store's tag and the run's id in its history) so no later run, of this store or
    /// another, replaces it. Pipelines set it; a report
    /// path given to a single command is written as given. Runs kept in no history (dry
    /// runs, `summarize`) always use the path as given.
    public var reportPerRun = false
    /// Seconds each batch should take (`--batch-seconds`): batches are then sized to it
    /// (`BatchSizer`), `batchSize` being the first and the largest; nil: every batch `batchSize`.
    public var batchSeconds: Double?
    /// Records per second for all processes of the run together (`--max-rate`); the control's
    /// `throttle --max-rate` applies too (the lower wins).
    public var maxRate: Double?
    /// Exit (status 9) instead of waiting when the run is paused (`--exit-when-paused`).
    public var exitWhenPaused = false
    /// How the run answers the server's health (`--throttle`, the limits); nil: it reads none.
    public var health: HealthPolicy?

    /// `path` with `-run<id>` before its `.jsonl` / `.jsonl.zst` suffix (or at its end),
    /// after the store's tag when `storeID` is given (`issues-1a2b3c4d-run12.jsonl`, see
    /// `StoreNaming`): run ids are per store, so two stores' run 1 must not share a name.
    public static func perRunReportPath(_ path: String, runID: Int64, storeID: String = "") -> String {
        let tag = StoreNaming.tag(storeID)
        let run = (tag.isEmpty ? "" : "-" + tag) + "-run\(runID)"
        for suffix in [".jsonl.zst", ".jsonl"] where path.hasSuffix(suffix) {
            return String(path.dropLast(suffix.count)) + run + suffix
        }
        return path + run
    }

    /// Creates settings; `workers` and `batchSize` below 1 are raised to 1 (the CLI and
    /// pipeline files reject them before they get here).
    public init(
        workers: Int = RunSettings.defaultWorkers, batchSize: Int = RunSettings.defaultBatchSize,
        reportPath: String? = nil, control: RunControl = RunControl(), arguments: String,
        pipeline: String? = nil, showProgress: Bool = true
    ) {
        self.workers = max(1, workers)
        self.batchSize = max(1, batchSize)
        self.reportPath = reportPath
        self.control = control
        self.arguments = arguments
        self.pipeline = pipeline
        self.showProgress = showProgress
    }
}
