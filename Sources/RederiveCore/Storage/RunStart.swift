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
    /// When the run continues under its own id (`rejoin`): the counts it had saved, which
    /// its totals go on from.
    package var carried: RunStatistics?

    /// Creates a start.
    package init(
        runID: Int64, resumedFrom: Int64?, checkpointSeq: Int64?, upperBoundSeq: Int64?,
        carried: RunStatistics? = nil
    ) {
        (self.runID, self.resumedFrom) = (runID, resumedFrom)
        (self.checkpointSeq, self.upperBoundSeq, self.carried) = (checkpointSeq, upperBoundSeq, carried)
    }
}
