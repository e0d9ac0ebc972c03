/// The run history: how a job's run is recorded (`RunRecording`), continued and bounded,
/// and what later runs replaced.
package protocol RunHistory: StoreHandle {
    /// Records a run as `RunStartPlan` decides from the latest run under the request's key
    /// (begun, continued, reopened or joined; with `onlyJoin`, nothing when that run
    /// completed), decided in the same transaction that begins it.
    func beginRun(_ request: RunStartRequest) throws(RederiveError) -> RunStart
    /// Sets the fixed upper bound of a run's keyset walk.
    func setUpperBound(runID: Int64, upperBoundSeq: Int64) throws(RederiveError)
    /// The runs recorded under `resumeKey`, oldest first (a plan's applies).
    func runs(resumeKey: String) throws(RederiveError) -> [RecordedRun]
    /// The id of the latest run in the history (0: none).
    func lastRunID() throws(RederiveError) -> Int64
    /// The summary-history rows left by runs after run `afterRun` for records with keys in
    /// `after...upTo` (exclusive, inclusive), by record key.
    func replacedSummaries(afterRun: Int64, after: Int64, upTo: Int64) throws(RederiveError) -> [ReplacedSummary]
    /// The highest history row run `run` left.
    func maxHistoryID(replacedBy run: Int64) throws(RederiveError) -> Int64
    /// Records how a run ended.
    func finishRun(
        _ runID: Int64, status: RunStatus, exitStatus: Int32, statistics: RunStatistics)
        throws(RederiveError)
    /// A channel to the control and the batch record (`RunControls`) for one run's governor,
    /// `pause` and `status`; nil on an engine without them.
    func openRunControls() throws(RederiveError) -> (any RunControls)?
}

extension RunHistory {
    /// No control (a store that keeps none).
    package func openRunControls() throws(RederiveError) -> (any RunControls)? { nil }
}
