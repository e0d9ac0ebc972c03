import Foundation
import GRDB
import Synchronization

/// SQLite's busy handler for a store's connections, written out so the time they spend waiting
/// for a lock another connection holds (another process's write transaction, a checkpoint) is
/// summed: the `lock_wait_seconds` health signal. It waits as `sqlite3_busy_timeout` does
/// (1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, then 100 ms a try) and gives up, as SQLITE_BUSY,
/// once `timeout` seconds of waits have passed.
final class SQLiteLockWaits: Sendable {
    private static let delays = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]
    /// The seconds waited since the last `take()`.
    private let waited = Mutex(0.0)
    private let timeoutMilliseconds: Int

    /// A handler that waits up to `timeout` seconds for one lock.
    init(timeout: Double) { timeoutMilliseconds = Int(timeout * 1000) }

    /// The busy mode that waits through this handler.
    var busyMode: Database.BusyMode { .callback { [self] tries in wait(tries: tries) } }

    /// Waits once more for a lock SQLite found held (`tries` waits for it so far); false: give up.
    func wait(tries: Int) -> Bool {
        let last = Self.delays.count - 1
        var delay = Self.delays[min(tries, last)]
        let prior =
            tries <= last
            ? Self.delays[..<tries].reduce(0, +)
            : Self.delays.reduce(0, +) + Self.delays[last] * (tries - last - 1)
        if prior + delay > timeoutMilliseconds {
            delay = timeoutMilliseconds - prior
            if delay <= 0 { return false }
        }
        let start = DispatchTime.now().uptimeNanoseconds
        usleep(UInt32(delay * 1000))
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        waited.withLock { $0 += seconds }
        return true
    }

    /// The seconds every connection of the store waited for a lock since the last call (since
    /// the store was opened, the first time).
    func take() -> Double {
        waited.withLock { value in
            defer { value = 0 }; return value
        }
    }
}
