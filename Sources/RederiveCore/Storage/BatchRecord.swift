/// One batch of a run as the store keeps it (table `run_batch`): who did it, which keys, how
/// many records, where its time went, what it waited for and the server's health it saw.
/// `status --run N` shows them, the metrics file sums them, and `history --prune` removes
/// them with the run's history.
public struct BatchRecord: Sendable, Equatable {
    /// The run.
    public var runID: Int64
    /// The process that did it (`host:pid`).
    public var worker: String
    /// First key of the batch (a claimed range's first key), when the job has keys.
    public var seqFrom: Int64?
    /// Last key of the batch.
    public var seqTo: Int64?
    /// Records read.
    public var records: Int
    /// Seconds spent reading it (the driver's wait for it when the job does not time its reads).
    public var readSeconds: Double
    /// Seconds spent deriving (or otherwise working on) it.
    public var deriveSeconds: Double
    /// Seconds its commit took (on the writer thread).
    public var commitSeconds: Double
    /// Seconds the run waited after it (a pause, the rate budget).
    public var waitedSeconds: Double
    /// What it waited for (`paused`, `max-rate`), nil when it did not.
    public var waitReason: String?
    /// When it was committed (UTC, ISO 8601).
    public var finishedAt: String
    /// The server's health seen when it was claimed, before it was read (nil when the run
    /// watched none: `--throttle off`, or a store recorded before the health was kept).
    public var claimHealth: BatchHealth?
    /// The server's health seen when it was committed.
    public var commitHealth: BatchHealth?

    /// Creates a record.
    public init(
        runID: Int64, worker: String, seqFrom: Int64? = nil, seqTo: Int64? = nil, records: Int,
        readSeconds: Double = 0, deriveSeconds: Double = 0, commitSeconds: Double = 0, waitedSeconds: Double = 0,
        waitReason: String? = nil, finishedAt: String = "", claimHealth: BatchHealth? = nil,
        commitHealth: BatchHealth? = nil
    ) {
        (self.runID, self.worker, self.seqFrom, self.seqTo, self.records) = (runID, worker, seqFrom, seqTo, records)
        (self.readSeconds, self.deriveSeconds, self.commitSeconds) = (readSeconds, deriveSeconds, commitSeconds)
        (self.waitedSeconds, self.waitReason, self.finishedAt) = (waitedSeconds, waitReason, finishedAt)
        (self.claimHealth, self.commitHealth) = (claimHealth, commitHealth)
    }

    /// The batch's working time: read, derive and commit (what `--batch-seconds` aims at).
    public var workSeconds: Double { readSeconds + deriveSeconds + commitSeconds }
}
