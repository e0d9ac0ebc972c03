import Dispatch
import Synchronization

/// Runs a batch of independent jobs on concurrent Dispatch workers. Each worker owns one
/// slot (its parser, scratch buffers) so no mutable state is shared; results come back in
/// input order.
public final class WorkerPool<Slot>: @unchecked Sendable {
    /// One slot per worker.
    public let slots: [Slot]

    /// Creates a pool of `workers` workers, each with a slot from `makeSlot`.
    public init(workers: Int, makeSlot: () -> Slot) {
        slots = (0..<max(1, workers)).map { _ in makeSlot() }
    }

    /// Number of workers.
    public var workers: Int { slots.count }

    /// `body(slot, input)` for every input, on all workers; results in input order.
    public func map<In, Out>(_ inputs: [In], _ body: (Slot, In) -> Out) -> [Out] {
        let count = inputs.count
        guard count > 0 else { return [] }
        let results = UnsafeMutablePointer<Out>.allocate(capacity: count)
        defer { results.deallocate() }
        let next = Counter()
        let lanes = min(workers, count)
        withoutActuallyEscaping(body) { escapable in
            let shared = Unchecked((inputs, escapable, results, slots))
            DispatchQueue.concurrentPerform(iterations: lanes) { lane in
                let (inputs, body, results, slots) = shared.value
                let slot = slots[lane]
                while true {
                    let i = next.value.add(1, ordering: .relaxed).oldValue
                    if i >= count { break }
                    (results + i).initialize(to: body(slot, inputs[i]))
                }
            }
        }
        // Moved, not copied: a copy retained every reference a result holds, then released them all.
        return [Out](unsafeUninitializedCapacity: count) { out, initialized in
            out.baseAddress!.moveInitialize(from: results, count: count)
            initialized = count
        }
    }
}

private final class Counter: Sendable {
    let value = Atomic<Int>(0)
}

/// Carries a value into a `@Sendable` closure whose concurrent use the caller has made safe.
struct Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
