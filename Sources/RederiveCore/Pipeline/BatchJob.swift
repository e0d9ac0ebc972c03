import Logging

/// One kind of batch run (import, derive, its dry run, revert, summarize, export): what it
/// reads, what it does to each batch and what it writes. `BatchRunner` owns everything
/// else — the run history row, the issue report, the progress line, the writer thread,
/// the error budget and signals, and the final `RunReport` — so every job behaves the same
/// way there (swift-format's `Frontend`/`processFile` split).
///
/// The runner calls, in order: `start` (which returns the job's sink), then `nextBatch` →
/// `process` → (writer thread) the sink's `write` until `nextBatch` returns nil or the run
/// stops, then `cancel`, then `finish`. The job itself stays on the driver's thread (it is
/// not `Sendable`); only its `BatchSink` crosses to the writer thread.
protocol BatchJob: AnyObject {
    /// What one read step yields.
    associatedtype Batch
    /// What the writer thread commits for one batch (one transaction for a store write).
    associatedtype Write: Sendable

    /// The command name in the run history, the tally and the logs (`import`, `derive`...).
    var command: String { get }
    /// The derivation the job applies (recorded in the run history and the report).
    var deriver: SummaryDeriver { get }
    /// How this job's run is recorded; nil for a job that records no run (a dry run,
    /// `summarize`).
    var recording: RunRecording? { get }
    /// Whether issues may arrive out of file-then-line order (the report then sorts them).
    var issuesOutOfOrder: Bool { get }
    /// Whether the progress line shows MB/s (reading exports) or only records.
    var progressShowsBytes: Bool { get }

    /// Prepares the source once the run exists (`run` is nil when nothing is recorded) and
    /// returns the sink that commits the batches (on the writer thread).
    func start(_ run: RunStart?, log: Logger) throws(RederiveError) -> BatchSink<Write>
    /// The next batch, nil when the source is exhausted.
    func nextBatch() throws(RederiveError) -> Batch?
    /// Works on one batch (on the caller's thread, fanning out to the job's workers);
    /// counts into `stats` and hands skipped records to `issues`.
    func process(_ batch: Batch, stats: inout RunStatistics, issues: IssueReport) throws(RederiveError) -> Write
    /// Stops the source early (idempotent; a no-op once it is exhausted).
    func cancel()
    /// Ends the job after the last write: outputs are committed when `status` is
    /// `completed` and discarded otherwise. Adds any final counts to `stats`.
    func finish(status: RunStatus, stats: inout RunStatistics) throws(RederiveError)
    /// The share of the work done, for the progress line's ETA, if known.
    func progressFraction(_ stats: RunStatistics) -> Double?
    /// Named counts for the tally and `--json`, in display order.
    func counts(_ stats: RunStatistics) -> [(String, Int)]
    /// Failures that were not already open in the ledger.
    var newFailures: Int { get }
    /// What a completed run could not do although asked to (see `RunReport.warnings`);
    /// called after `finish`. Any warning makes a run that would exit 0 exit 3.
    func warnings(_ stats: RunStatistics) throws(RederiveError) -> [String]
    /// The output file the job wrote, if any (logged and reported).
    var outputPath: String? { get }
    /// The first and last key a batch's write covers, for the batch record (nil: no keys).
    func batchKeys(_ write: Write) -> (from: Int64, to: Int64)?
    /// Seconds the job spent reading `batch` on its own thread, when it times its reads (nil:
    /// the driver's wait for it counts).
    func readSeconds(_ batch: Batch) -> Double?
    /// The size of the batches to read next (`--batch-seconds`); a job with fixed batches ignores it.
    func resize(to size: Int)
    /// Before a pause, with nothing in flight: gives back what the job holds (claimed ranges)
    /// and drops what it read ahead, so a pause of any length loses nothing.
    func yieldForPause() throws(RederiveError)
    /// After a pause: reads on from where the last batch handed over ended.
    func resumeAfterPause() throws(RederiveError)
}

/// How a job's run is kept in the store's history.
struct RunRecording {
    /// The store that keeps the history.
    var store: any RunHistory
    /// Runs with the same key continue an unfinished predecessor; nil: never continued.
    var resumeKey: String?
    /// How an unfinished predecessor is continued (`RunStartPlan`): by a new run that names
    /// it, or as the same run (reopened, its counts carried on).
    var continuation = RunStartRequest.Continuation.asNewRun
    /// Set: only join or continue. When the latest run under the key has completed (other
    /// processes finished a plan's apply, or their group's run, since this one looked), the
    /// job ends at once with nothing begun, its report's note what this says of that run.
    var whenCompleted: ((Int64) -> String)?
}

extension BatchJob {
    var issuesOutOfOrder: Bool { false }
    var progressShowsBytes: Bool { false }
    func progressFraction(_ stats: RunStatistics) -> Double? { nil }
    var newFailures: Int { 0 }
    func warnings(_ stats: RunStatistics) throws(RederiveError) -> [String] { [] }
    var outputPath: String? { nil }
    func batchKeys(_ write: Write) -> (from: Int64, to: Int64)? { nil }
    func readSeconds(_ batch: Batch) -> Double? { nil }
    func resize(to size: Int) {}
    func yieldForPause() throws(RederiveError) {}
    func resumeAfterPause() throws(RederiveError) {}
}
