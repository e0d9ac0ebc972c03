/// A run's batches summed, for the report and the metrics file.
public struct BatchTotals: Sendable, Equatable {
    /// Batches.
    public var batches = 0
    /// Records in them.
    public var records = 0
    /// Seconds reading.
    public var readSeconds = 0.0
    /// Seconds deriving.
    public var deriveSeconds = 0.0
    /// Seconds committing.
    public var commitSeconds = 0.0
    /// Seconds waited (pauses, the rate budget).
    public var waitedSeconds = 0.0

    /// Creates empty totals.
    public init() {}

    /// Adds one batch.
    public mutating func add(_ batch: BatchRecord) {
        batches += 1
        records += batch.records
        readSeconds += batch.readSeconds
        deriveSeconds += batch.deriveSeconds
        commitSeconds += batch.commitSeconds
        waitedSeconds += batch.waitedSeconds
    }

    /// The totals of `batches`.
    public static func of(_ batches: [BatchRecord]) -> BatchTotals {
        batches.reduce(into: BatchTotals()) { $0.add($1) }
    }
}
