import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Asks the kernel to start writing one of a store's files to disk
/// (`sync_file_range(SYNC_FILE_RANGE_WRITE)`, which does not wait), so a later `fdatasync` of it
/// finds most of it written: the WAL after each import batch commits (the next checkpoint's sync
/// of the WAL would write ~64 MB while the writer waits), the store file after each checkpoint
/// pass (the store closes with a checkpoint that syncs it, on the main thread, with every other
/// thread done). Durability is SQLite's as before: a hint only moves the disk's work earlier.
///
/// The file is opened read-only on a descriptor of its own at the first hint. Closing a
/// descriptor drops every POSIX lock the process holds on its file, and SQLite locks the store
/// file (never the `-wal`), so a store file's descriptor is closed only by `close()`, once the
/// store's connections are closed (a second store open on the same file in the process would
/// lose its locks too: rederive opens one store a path at a time); the WAL's is closed with this
/// object too. Linux only: elsewhere, or where the call is missing, `hint()` does nothing.
final class FileWriteback: @unchecked Sendable {
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

    private let path: String
    private let closesWhenDropped: Bool
    private let lock = NSLock()
    private var descriptor: Int32 = -1
    private var closed = false
    private var hinted = 0

    /// The hint for the WAL of the store at `storePath` (SQLite never locks it).
    static func wal(ofStore storePath: String) -> FileWriteback {
        FileWriteback(path: storePath + "-wal", closesWhenDropped: true)
    }

    /// The hint for the store file at `storePath`: `close()` it once the store's connections are.
    static func store(_ storePath: String) -> FileWriteback {
        FileWriteback(path: storePath, closesWhenDropped: false)
    }

    private init(path: String, closesWhenDropped: Bool) {
        self.path = path
        self.closesWhenDropped = closesWhenDropped
    }

    // A store file's descriptor left open by a store never closed stays open: closing it could
    // drop the locks of a connection still open on the file.
    deinit { if closesWhenDropped, descriptor >= 0 { Glibc.close(descriptor) } }

    /// How many hints the kernel took (for tests).
    var hints: Int { lock.withLock { hinted } }

    /// Starts the file's writeback; opens it first when it exists and is not open yet.
    func hint() {
        guard let syncFileRange = Self.syncFileRange else { return }
        lock.withLock {
            guard !closed else { return }
            if descriptor < 0 { descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
            if descriptor >= 0, syncFileRange(descriptor, 0, 0, Self.write) == 0 { hinted += 1 }
        }
    }

    /// Closes the descriptor (no hint after it).
    func close() {
        lock.withLock {
            closed = true
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = -1
        }
    }
}
