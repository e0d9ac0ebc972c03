import Foundation

/// A blocking first-in first-out queue of bounded capacity between one producer and one
/// consumer.
final class BoundedQueue<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element] = []
    private var closed = false
    private let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func push(_ item: Element) {
        condition.lock()
        while items.count >= capacity && !closed { condition.wait() }
        if !closed { items.append(item) }
        condition.broadcast()
        condition.unlock()
    }

    func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed { condition.wait() }
        guard !items.isEmpty else { return nil }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    /// Blocks until the queue has room for one more item; false once it is closed.
    func waitForRoom() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !closed { condition.wait() }
        return !closed
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
