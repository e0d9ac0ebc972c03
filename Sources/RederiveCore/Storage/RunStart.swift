/// Where a new run starts: fresh, or continuing an unfinished run of the same command.
package struct RunStart: Sendable {
    /// The run's id.
    package var runID: Int64
    /// The unfinished run this one continues.
    package var resumedFrom: Int64?
    /// The key the continued run got to.
    package var checkpointSeq: Int64?
    /// The continued run's upper bound.
    package var upperBoundSeq: Int64?
    /// When the run is reopened under its own id (`RunStartPlan.reopen`): the counts it saved, which
    /// its totals go on from.
    package var carried: RunStatistics?
    /// No run was begun: the latest run under the key (`runID`) had completed, and the caller
    /// asked only to join or continue (`RunRecording.whenCompleted`).
    package var alreadyCompleted = false

    /// Creates a start.
    package init(
        runID: Int64, resumedFrom: Int64?, checkpointSeq: Int64?, upperBoundSeq: Int64?,
        carried: RunStatistics? = nil
    ) {
        (self.runID, self.resumedFrom) = (runID, resumedFrom)
        (self.checkpointSeq, self.upperBoundSeq, self.carried) = (checkpointSeq, upperBoundSeq, carried)
    }

    /// The start of nothing: run `runID`, under the same key, completed the work already.
    package static func completed(by runID: Int64) -> RunStart {
        var start = RunStart(runID: runID, resumedFrom: nil, checkpointSeq: nil, upperBoundSeq: nil)
        start.alreadyCompleted = true
        return start
    }
}
