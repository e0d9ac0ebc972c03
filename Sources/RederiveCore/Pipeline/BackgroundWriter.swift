import Foundation

/// Runs store writes on one background thread, one batch at a time and in order, so the
/// workers derive batch N+1 while batch N commits. The first error stops further writes and
/// is reported by `finish()`.
final class BackgroundWriter<Job: Sendable>: @unchecked Sendable {
    private let queue = BoundedQueue<Job>(capacity: 1)
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var error: RederiveError?
    // Batches submitted and written (or skipped after a failure), for `drain()`.
    private let progress = NSCondition()
    private var submitted = 0
    private var written = 0
    // Read and dropped by the writer thread only.
    private var write: (@Sendable (Job) throws(RederiveError) -> Void)?

    init(write: @escaping @Sendable (Job) throws(RederiveError) -> Void) {
        self.write = write
        let thread = Thread { [self] in
            while let job = queue.pop() {
                defer {
                    progress.lock()
                    written += 1
                    progress.broadcast()
                    progress.unlock()
                }
                if failed { continue }
                do throws(RederiveError) { try self.write?(job) } catch {
                    let failure = error
                    lock.withLock { self.error = failure }
                }
            }
            // Released before finish() returns, not when the thread object goes: what the write
            // holds (an output's temporary file, removed when dropped) is then gone by the time
            // the run reports.
            self.write = nil
            done.signal()
        }
        thread.start()
    }

    /// Whether a write has failed.
    var failed: Bool { lock.withLock { error != nil } }

    /// Queues a batch (blocks while the previous one is still waiting).
    func submit(_ job: Job) {
        progress.lock()
        submitted += 1
        progress.unlock()
        queue.push(job)
    }

    /// Waits until every batch submitted so far is written (a pause: nothing is in flight).
    func drain() {
        progress.lock()
        while written < submitted { progress.wait() }
        progress.unlock()
    }

    /// Waits for every queued write; throws the first write error.
    func finish() throws(RederiveError) {
        queue.close()
        done.wait()
        if let error = lock.withLock({ error }) { throw error }
    }
}
