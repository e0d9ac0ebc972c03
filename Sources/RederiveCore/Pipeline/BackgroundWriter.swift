import Foundation

/// Runs store writes on one background thread, one batch at a time and in order, so the
/// workers derive batch N+1 while batch N commits. The first error stops further writes and
/// is reported by `finish()`.
final class BackgroundWriter<Job: Sendable>: @unchecked Sendable {
    private let queue = BoundedQueue<Job>(capacity: 1)
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var error: RederiveError?
    // Read and dropped by the writer thread only.
    private var write: (@Sendable (Job) throws(RederiveError) -> Void)?

    init(write: @escaping @Sendable (Job) throws(RederiveError) -> Void) {
        self.write = write
        let thread = Thread { [self] in
            while let job = queue.pop() {
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
    func submit(_ job: Job) { queue.push(job) }

    /// Waits for every queued write; throws the first write error.
    func finish() throws(RederiveError) {
        queue.close()
        done.wait()
        if let error = lock.withLock({ error }) { throw error }
    }
}
