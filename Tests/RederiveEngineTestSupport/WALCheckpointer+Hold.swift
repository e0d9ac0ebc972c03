import Foundation

import RederiveSQLite

extension WALCheckpointer {
    /// Holds the checkpointer's connection on a thread of its own, so no pass can run, until the
    /// function returned is called (which returns once it is let go).
    func hold() -> () -> Void {
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            self.connection.inDatabase { _ in
                held.signal()
                release.wait()
            }
            done.signal()
        }
        held.wait()
        return {
            release.signal()
            done.wait()
        }
    }
}
