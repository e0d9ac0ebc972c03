import Synchronization

/// The writer-thread half of a job: commits one batch's results, in batch order, one batch
/// at a time (see `BatchJob.start`). It is all the writer thread sees of a job, and the
/// compiler checks that it may cross threads: it holds immutable values, `Sendable` stores
/// and `Shared` state, never the job (whose driver part is not `Sendable`).
struct BatchSink<Write: Sendable>: Sendable {
    /// Commits one batch; `progress` is the run's statistics when the batch was handed over
    /// (saved with it as the checkpoint).
    let write: @Sendable (Write, RunStatistics) throws(RederiveError) -> Void

    /// A sink that commits nothing (a dry run, or a job whose output the driver writes).
    static var discarding: BatchSink { BatchSink { _, _ throws(RederiveError) in } }
}

/// State a job's sink and its driver share behind a lock: a count the writer thread adds to
/// and the driver reads at the end, or an output the writer appends to and the driver
/// closes after the last write.
final class Shared<Value>: Sendable {
    private let mutex: Mutex<Value>

    /// Shares `value` (handed over: no one else keeps a reference to it).
    init(_ value: sending Value) { mutex = Mutex(value) }

    /// Runs `body` on the value, holding the lock.
    func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try mutex.withLock(body)
    }
}
