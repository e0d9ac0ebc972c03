import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Asks the kernel to start writing a store's WAL to disk after each import batch commits
/// (`sync_file_range(SYNC_FILE_RANGE_WRITE)`, which does not wait), so the `fdatasync` of the
/// next checkpoint finds most of it written instead of writing ~64 MB while the writer waits.
/// Durability is SQLite's as before: a hint only moves the disk's work earlier.
///
/// The WAL is opened read-only on a descriptor of its own (SQLite locks the store file and the
/// `-shm`, never the `-wal`, so closing this descriptor releases no lock of SQLite's). Linux
/// only: elsewhere, or where the call is missing, `hint()` does nothing.
final class WALWriteback: @unchecked Sendable {
    private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
    /// `SYNC_FILE_RANGE_WRITE` (not imported into Swift, nor the function).
    private static let write: UInt32 = 2
    private static let syncFileRange: SyncFileRange? = {
        #if os(Linux)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: SyncFileRange.self)
        #else
        return nil
        #endif
    }()

    private let walPath: String
    private let lock = NSLock()
    private var descriptor: Int32 = -1
    private var hinted = 0

    /// The hint for the WAL of the store at `storePath`.
    init(storePath: String) { walPath = storePath + "-wal" }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// How many hints the kernel took (for tests).
    var hints: Int { lock.withLock { hinted } }

    /// Starts the WAL's writeback; opens it first when it exists and is not open yet.
    func hint() {
        guard let syncFileRange = Self.syncFileRange else { return }
        lock.withLock {
            if descriptor < 0 { descriptor = open(walPath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
            if descriptor >= 0, syncFileRange(descriptor, 0, 0, Self.write) == 0 { hinted += 1 }
        }
    }
}
