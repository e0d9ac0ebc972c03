import Synchronization

/// The size a job's reader thread reads its next batch at: set by the driver from the run's
/// governor (`--batch-seconds`), read by the producer without a lock.
final class BatchSizeHint: Sendable {
    private let size: Atomic<Int>

    /// A hint starting at `size` (at least 1).
    init(_ size: Int) { self.size = Atomic(max(1, size)) }

    /// The size to read the next batch at.
    var value: Int { size.load(ordering: .relaxed) }

    /// Sets the size of the batches read from now on (at least 1).
    func set(_ newSize: Int) { size.store(max(1, newSize), ordering: .relaxed) }
}
