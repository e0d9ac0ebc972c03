import Foundation
import RederiveCore

/// Opens a store that must already exist: read-only for the inspecting commands (`status`,
/// `show`, `failures`), which never create, migrate or write anything; under the store's run
/// lock for the commands that change an existing store (`history --prune`, `revert`), which
/// never create one.
enum ExistingStore {
    /// The store at `path`, opened read-only. A missing path or a directory is a usage error
    /// (exit 1) named as such, not SQLite's "disk I/O error".
    static func openReadOnly(_ path: String) throws(RederiveError) -> Store {
        try Store(path: path, mode: .readOnly)
    }

    /// Runs `body` with the store at `path` opened for writing, holding its run lock (taken as
    /// `locking` says) until `body` returns. A missing path is a usage error (exit 1).
    static func withLockedStore(
        _ path: String, locking: LockOptions, _ body: (Store) throws -> Int32
    ) throws -> Int32 {
        guard FileManager.default.fileExists(atPath: path) else {
            throw RederiveError.usage("\(path): no such store (`rederive import` creates one)")
        }
        let lock = try locking.acquire(store: path)
        defer { lock.release() }
        let store = try Store(path: path, mode: .existing)
        defer { store.close() }
        return try body(store)
    }
}
