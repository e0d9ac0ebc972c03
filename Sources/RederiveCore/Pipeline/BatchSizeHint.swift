import Foundation
import Synchronization

/// The size a job's reader thread reads its next batch at: set by the driver from the run's
/// governor (`--batch-seconds`), read by the producer without a lock.
final class BatchSizeHint: @unchecked Sendable {
    private let size: Atomic<Int>
    // Whether the driver has set a size yet (the first batch was sized), under `condition`.
    private let condition = NSCondition()
    private var given = false

    /// A hint starting at `size` (at least 1).
    init(_ size: Int) { self.size = Atomic(max(1, size)) }

    /// The size to read the next batch at.
    var value: Int { size.load(ordering: .relaxed) }

    /// Sets the size of the batches read from now on (at least 1).
    func set(_ newSize: Int) {
        size.store(max(1, newSize), ordering: .relaxed)
        condition.lock()
        given = true
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks until the driver has set a size once; false when `cancelled` (asked every 50 ms)
    /// says the consumer went away first.
    func waitUntilSet(cancelled: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !given {
            if cancelled() { return false }
            _ = condition.wait(until: Date().addingTimeInterval(0.05))
        }
        return true
    }
}
