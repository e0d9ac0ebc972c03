import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files and folders this process created and has not yet put in place or
/// removed (`X.partial`, the standard-input spool, the change list of a preview), so that a
/// SIGINT or SIGTERM that ends the process leaves no copy of the data behind.
///
/// The signal handler may only call async-signal-safe functions: it reads a fixed table of C
/// strings (allocated when a path is registered, never freed, so a handler racing `forget`
/// still reads a valid string) and calls `unlink` and `rmdir` on them.
public enum TemporaryFiles {
    /// How many paths can be tracked at once; more are not removed by a signal (a command
    /// keeps a handful open at a time).
    static let capacity = 64

    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        table.initialize(repeating: nil, count: capacity)
        return table
    }()

    private static let lock = Mutex<Void>(())

    /// Remembers `path` (a file or folder this process just created) for removal on a signal.
    public static func register(_ path: String) {
        lock.withLock { _ in
            for i in 0..<capacity where slots[i] == nil {
                slots[i] = strdup(path)
                return
            }
        }
    }

    /// Forgets `path` (renamed into place or removed). The string stays allocated: the
    /// signal handler may be reading it.
    public static func forget(_ path: String) {
        lock.withLock { _ in
            for i in 0..<capacity {
                if let p = slots[i], strcmp(p, path) == 0 {
                    slots[i] = nil
                    return
                }
            }
        }
    }

    /// Whether `path` is registered now.
    public static func isRegistered(_ path: String) -> Bool {
        lock.withLock { _ in
            (0..<capacity).contains { i in slots[i].map { strcmp($0, path) == 0 } ?? false }
        }
    }

    /// Makes SIGINT and SIGTERM remove every registered file, then folder, and end the
    /// process by that signal (exit 130/143), as the default action would. Commands that
    /// stop cleanly on a signal replace these handlers (`RunControl.installSignalHandlers`)
    /// and remove their temporary files on the way out.
    public static func installSignalCleanup() {
        _ = slots
        signal(SIGINT) { TemporaryFiles.removeAllAndReraise($0) }
        signal(SIGTERM) { TemporaryFiles.removeAllAndReraise($0) }
    }

    // Async-signal-safe: reads the table, unlink, rmdir, signal, raise.
    private static func removeAllAndReraise(_ sig: Int32) {
        removeAllNow()
        signal(sig, SIG_DFL)
        raise(sig)
    }

    /// Removes every registered path now (files first, then the folders they were in).
    static func removeAllNow() {
        for i in 0..<capacity { if let p = slots[i] { unlink(p) } }
        for i in 0..<capacity { if let p = slots[i] { rmdir(p) } }
    }
}
