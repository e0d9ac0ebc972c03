/// Sizes batches to take a target time (`--batch-seconds`): pure, fed each batch's records and
/// working seconds (read and derive when it is handed over, its commit once done), with no clock
/// of its own.
///
/// The rate is a decaying average (pt-online-schema-change's `--chunk-time`: records and
/// seconds each decay by 0.75 a batch), the next size the rate times the target; it grows by
/// at most 20 % a step (at least one record) (GitLab's batch optimizer) and shrinks at once, within
/// `minimum...maximum` (`--batch-size` is both the first size and the largest).
public struct BatchSizer: Sendable, Equatable {
    /// How much of the past each batch keeps.
    public static let decay = 0.75
    /// The most a size grows in one step.
    public static let maxGrowth = 1.2

    /// Seconds each batch should take.
    public let targetSeconds: Double
    /// The smallest size.
    public let minimum: Int
    /// The largest size (and the first).
    public let maximum: Int
    /// The size of the next batch.
    public private(set) var size: Int
    private var records = 0.0
    private var seconds = 0.0

    /// A sizer aiming at `targetSeconds` a batch, starting at (and never above) `first`.
    public init(targetSeconds: Double, first: Int, minimum: Int = 1) {
        self.targetSeconds = max(targetSeconds, 0.001)
        self.maximum = max(1, first)
        self.minimum = min(max(1, minimum), self.maximum)
        self.size = self.maximum
    }

    /// Takes in one batch (`records` that took `seconds` of work) and returns the next size.
    @discardableResult
    public mutating func observe(records batchRecords: Int, seconds batchSeconds: Double) -> Int {
        guard batchRecords > 0, batchSeconds.isFinite, batchSeconds >= 0 else { return size }
        records = records * Self.decay + Double(batchRecords)
        seconds = seconds * Self.decay + max(batchSeconds, 1e-6)
        return resize()
    }

    /// Adds `seconds` of work to the batch last observed (its commit, which ends after the next
    /// batch was sized: the part known first sizes it, the whole the ones after) and returns the
    /// next size, which can only shrink by it.
    @discardableResult
    public mutating func observeMore(seconds more: Double) -> Int {
        guard records > 0, more.isFinite, more > 0 else { return size }
        seconds += more
        return resize()
    }

    private mutating func resize() -> Int {
        let ideal = records / seconds * targetSeconds
        let capped = min(ideal, max(Double(size) * Self.maxGrowth, Double(size + 1)))
        size = Int(min(max(capped.rounded(.down), Double(minimum)), Double(maximum)))
        return size
    }
}
