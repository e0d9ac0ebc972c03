/// The run settings an `import` or a `derive` stage may give for itself (`ImportStage.batch`,
/// `DeriveStage.batch`): read by `MappingReader.batchOptions()`, resolved (flags first, then
/// the stage, then the pipeline, then `RunSettings`) by `ResolvedPipeline.resolve`.
public struct BatchStageOptions: Sendable, Equatable {
    /// `report`: the error report path.
    public var report: String?
    /// `max-errors`: the error budget in records.
    public var maxErrors: Int?
    /// `max-error-rate`: the error budget as a share of records.
    public var maxErrorRate: Double?
    /// `workers`: the stage's workers.
    public var workers: Int?
    /// `batch-size`: records per transaction.
    public var batchSize: Int?
    /// `batch-seconds`: batches sized to take this long (`--batch-seconds`).
    public var batchSeconds: Double?
    /// `max-rate`: records per second for all processes of the run together (`--max-rate`).
    public var maxRate: Double?
    /// `exit-when-paused: true`: exit 9 instead of waiting while paused (`--exit-when-paused`).
    public var exitWhenPaused = false

    /// No setting given: each comes from the flags, the pipeline or the defaults.
    public init() {}
}
