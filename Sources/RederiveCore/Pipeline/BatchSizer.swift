/// Sizes batches to take a target time (`--batch-seconds`): pure, fed each batch's records and
/// working seconds (read and derive when it is handed over, its commit once done), with no clock
/// of its own.
///
/// The rate is the records per second of the last `window` batches together, leaving out those
/// more than `outlier` times slower or faster than their median; the next size is that rate times
/// the target. A decaying average of all (pt-online-schema-change's `--chunk-time`, which this
/// sizer used first) was dragged down by one slow batch (a checkpoint's fsync, a moment the machine
/// ran something else) as far as it was slow, shrank the next batches at once and left them short
/// for the many +20 % steps back, so most misses were the batches after an outlier; now one slow
/// batch moves nothing and three in a row (a server really slower) move the size the whole way.
/// The sum over the batches kept, not their median rate alone, keeps the average's smoothing of
/// ordinary jitter (a median of five rates missed more often on a busy machine). The size grows by
/// at most 20 % a step (at least one record) (GitLab's batch optimizer) and shrinks at once, within
/// `minimum...maximum` (`--batch-size` is both the first size and the largest).
public struct BatchSizer: Sendable, Equatable {
    /// How many of the latest batches the rate is taken from.
    public static let window = 5
    /// How far (a factor) a batch's rate may be from the median of the window and still count.
    public static let outlier = 2.0
    /// The most a size grows in one step.
    public static let maxGrowth = 1.2

    /// One batch the rate is taken from: its records, its read and derive seconds, and its
    /// commit's (the last part) once added.
    private struct Sample: Sendable, Equatable {
        var records: Double
        var work: Double
        var commit: Double?
    }

    /// Seconds each batch should take.
    public let targetSeconds: Double
    /// The smallest size.
    public let minimum: Int
    /// The largest size (and the first).
    public let maximum: Int
    /// The size of the next batch.
    public private(set) var size: Int
    /// The latest batches, oldest first (at most `window`).
    private var samples: [Sample] = []

    /// A sizer aiming at `targetSeconds` a batch (a microsecond at least), starting at (and never
    /// above) `first`.
    public init(targetSeconds: Double, first: Int, minimum: Int = 1) {
        // Only a guard against zero and below: a floor of a millisecond, as before, made a smaller
        // `--batch-seconds` (which the flag takes) a millisecond without a word.
        self.targetSeconds = max(targetSeconds, 1e-6)
        self.maximum = max(1, first)
        self.minimum = min(max(1, minimum), self.maximum)
        self.size = self.maximum
    }

    /// Takes in one batch (`records` that took `seconds` of work so far: its read and derive) and
    /// returns the next size.
    @discardableResult
    public mutating func observe(records batchRecords: Int, seconds batchSeconds: Double) -> Int {
        guard batchRecords > 0, batchSeconds.isFinite, batchSeconds >= 0 else { return size }
        samples.append(Sample(records: Double(batchRecords), work: max(batchSeconds, 1e-6)))
        if samples.count > Self.window { samples.removeFirst(samples.count - Self.window) }
        return resize()
    }

    /// Adds `seconds` of work (its commit) to the oldest batch observed whose commit was not added
    /// yet (commits end in the order the batches were handed over, often after the next one was
    /// observed) and returns the next size, which can only shrink by it.
    @discardableResult
    public mutating func observeMore(seconds more: Double) -> Int {
        guard more.isFinite, more >= 0, let index = samples.firstIndex(where: { $0.commit == nil }) else { return size }
        samples[index].commit = more
        return resize(growing: false)
    }

    /// The window's rate times the target, capped, bounded; `growing` false: at most the size now
    /// (a commit added to a batch already sized from says only that it was slower).
    private mutating func resize(growing: Bool = true) -> Int {
        // A batch whose commit has not ended counts with the commit seconds a record of those whose
        // commit has: counted without, the batch just handed over (sized from at once, its commit
        // ending during the next) made every size that much too large.
        let committed = samples.filter { $0.commit != nil }
        let commitPerRecord =
            committed.isEmpty
            ? 0 : committed.map { $0.commit ?? 0 }.reduce(0, +) / committed.map(\.records).reduce(0, +)
        let timed = samples.map {
            (records: $0.records, seconds: $0.work + ($0.commit ?? commitPerRecord * $0.records))
        }
        let rates = timed.map { $0.records / $0.seconds }.sorted()
        guard !rates.isEmpty else { return size }
        // The median (the lower of the two middle rates when there is an even number: the smaller
        // size), then the records over the seconds of the batches near it.
        let median = rates[(rates.count - 1) / 2]
        let kept = timed.filter {
            $0.records / $0.seconds >= median / Self.outlier && $0.records / $0.seconds <= median * Self.outlier
        }
        let rate = kept.map(\.records).reduce(0, +) / kept.map(\.seconds).reduce(0, +)
        let ideal = rate * targetSeconds
        let capped = min(ideal, max(Double(size) * Self.maxGrowth, Double(size + 1)))
        let bounded = Int(min(max((capped + 1e-6).rounded(.down), Double(minimum)), Double(maximum)))
        size = growing ? bounded : min(size, bounded)
        return size
    }
}
