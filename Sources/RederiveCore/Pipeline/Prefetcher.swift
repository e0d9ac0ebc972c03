import Foundation
import Synchronization

/// Produces elements on a background thread a few ahead of the consumer (reading exports,
/// fetching keyset pages), so I/O overlaps the work on the previous batch. `cancel()` stops
/// the producer and drains the queue so a producer blocked on a full queue returns.
final class Prefetcher<Element: Sendable>: Sendable {
    private let queue: BoundedQueue<Element>
    private let stopped = Atomic<Bool>(false)

    /// Starts `produce`, which calls `emit` for each element and returns when done;
    /// `emit` returns false once the consumer has cancelled (the producer should return).
    convenience init(
        capacity: Int, stackSize: Int? = nil,
        produce: @escaping @Sendable (_ emit: (Element) -> Bool) -> Void
    ) {
        self.init(capacity: capacity, stackSize: stackSize) { emit, _ in produce(emit) }
    }

    /// Starts `produce` as above, which may also call `waitForRoom` before it makes an element,
    /// to make it only once the queue can take it (so it is made as late as it can be, not read
    /// ahead and then held); `waitForRoom` returns false once the consumer has cancelled.
    init(
        capacity: Int, stackSize: Int? = nil,
        produce: @escaping @Sendable (_ emit: (Element) -> Bool, _ waitForRoom: () -> Bool) -> Void
    ) {
        let queue = BoundedQueue<Element>(capacity: capacity)
        self.queue = queue
        let thread = Thread { [self] in
            defer { queue.close() }
            produce(
                { element in
                    if self.isCancelled { return false }
                    queue.push(element)
                    return !self.isCancelled
                },
                { queue.waitForRoom() && !self.isCancelled })
        }
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }

    /// Whether the consumer has cancelled.
    var isCancelled: Bool { stopped.load(ordering: .relaxed) }

    /// The next element, nil when the producer is done.
    func next() -> Element? { queue.pop() }

    /// Stops producing; pending elements are dropped.
    func cancel() {
        stopped.store(true, ordering: .relaxed)
        while queue.pop() != nil {}
    }
}
