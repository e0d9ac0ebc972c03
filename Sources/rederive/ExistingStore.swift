import Foundation
import RederiveCore

/// Opens a store that must already exist: read-only for the inspecting commands (`status`,
/// `show`, `failures`, `history --id`, dry runs), which never create, migrate or write
/// anything; under the store's run lock for the commands that change an existing store
/// (`history --prune`, `revert`), which never create one. Either engine: a SQLite file or a
/// server URL.
enum ExistingStore {
    /// Runs `body` with the store `location` names opened for writing, holding its run lock
    /// (taken as `locking` says; a server store has none) until `body` returns. A missing
    /// path is a usage error (exit 1).
    static func withLockedStore(
        _ location: String, locking: LockOptions, _ body: (any RecordStore) throws -> ExitStatus
    ) throws -> ExitStatus {
        // Decided before the lock: a refused file gets no `.lock` beside it.
        try RecordStores.check(location, mode: .existing)
        let lock = try locking.acquire(store: location)
        defer { lock?.release() }
        let store = try RecordStores.open(location, mode: .existing)
        defer { store.close() }
        return try body(store)
    }

    /// The store `location` names, opened read-only: a server URL, or a SQLite file (a
    /// missing path or a directory is then a usage error, exit 1, named as such rather than
    /// SQLite's "disk I/O error").
    static func open(_ location: String) throws(RederiveError) -> any RecordStore {
        try RecordStores.open(location, mode: .readOnly)
    }
}
