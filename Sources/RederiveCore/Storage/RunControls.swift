/// The control every run obeys and the record of its batches, kept in the store so that
/// every process on every host sees the same (`RunGovernor` reads it; `rederive pause`,
/// `resume`, `throttle` and `status` use it). An engine hands out its own channel
/// (`RunHistory.openRunControls`): one the governor uses from the run's driver thread while the
/// job reads and commits on others.
///
/// Writing the control never needs the run lock: a `pause` must reach a derive that holds it.
package protocol RunControls: AnyObject, Sendable {
    /// Who this process is (`host:pid`), as the batch record names it.
    var workerName: String { get }

    /// The rows that apply to run `runID`: the store's (every run) and the run's own and those
    /// of the runs it continues (a run continued after `--exit-when-paused` stays paused).
    func controls(forRun runID: Int64) throws(RederiveError) -> [RunControlState]
    /// Every row set (for `status`), the store's first.
    func allControls() throws(RederiveError) -> [RunControlState]
    /// Pauses run `runID` (nil: every run of the store).
    func pause(runID: Int64?, by: String, reason: String?, until: String?) throws(RederiveError)
    /// Lifts the pause of run `runID` and of the runs it continues (nil: the store's own);
    /// returns how many pauses were lifted.
    func resume(runID: Int64?) throws(RederiveError) -> Int
    /// Sets (or, nil, clears) the records per second of run `runID` (nil: every run).
    func setMaxRate(_ rate: Double?, runID: Int64?, by: String) throws(RederiveError)
    /// Takes `records` from run `runID`'s rate budget, shared by all its processes: returns how
    /// many seconds to wait before going on (the budget's next free moment, 0 when it is free).
    func reserve(records: Int, runID: Int64, maxRate: Double) throws(RederiveError) -> Double
    /// Keeps `batches` (one statement).
    func recordBatches(_ batches: [BatchRecord]) throws(RederiveError)
    /// Run `runID`'s batches in the order they were recorded.
    func batches(runID: Int64) throws(RederiveError) -> [BatchRecord]
    /// The run's status (`completed`, `running`, …), nil for an unknown run.
    func runStatus(_ runID: Int64) throws(RederiveError) -> String?
    /// Releases the channel (idempotent; a store that is its own channel stays open).
    func closeControls()
}
