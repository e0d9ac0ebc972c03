import Foundation

/// What a pipeline run did.
public struct PipelineOutcome: Sendable {
    /// The run reports of the stages that ran against the store, in order.
    public var reports: [RunReport]
    /// The previews of dry-run derive stages.
    public var previews: [ChangeReport]
    /// The pipeline's exit status: the first stopping stage's, else 3 when a stage skipped
    /// records, else 0.
    public var exitStatus: ExitStatus
    /// Every stage, in order, with how it ended, and the run's times.
    public var result: PipelineResult
    /// The store's figures after the last stage, read through the pipeline's own connection
    /// (for the metrics file's store gauges); nil for a dry run, a pipeline without a metrics
    /// file, or when no stage opened the store.
    public var storeFigures: MetricsFile.StoreFigures?
    /// The identity of the store the stages ran on (empty when none was opened), for names
    /// that carry it (`ResolvedPipeline.storeNamed`).
    public var storeID = ""

    /// The fault that stopped the pipeline, if one did (its stage's report in `reports` and
    /// `result` is a `RunReport.failure`).
    public var failure: RederiveError?

    /// The outcome of a pipeline that `error` stopped before its first stage (a busy or
    /// refused store): every stage not run, the error's status and reason.
    public static func notStarted(_ pipeline: ResolvedPipeline, failure error: RederiveError) -> PipelineOutcome {
        var result = PipelineResult(pipeline)
        result.exitStatus = error.exitStatus
        result.reason = error.description
        let report = RunReport.failure(command: "run", error: error)
        return PipelineOutcome(
            reports: [report], previews: [], exitStatus: error.exitStatus, result: result, failure: error)
    }
}
