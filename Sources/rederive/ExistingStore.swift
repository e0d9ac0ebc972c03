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
        try refuseURL(path, command: "this command")
        return try Store(path: path, mode: .readOnly)
    }

    /// Runs `body` with the store `location` names opened for writing, holding its run lock
    /// (taken as `locking` says; a server store has none) until `body` returns. A missing
    /// path is a usage error (exit 1).
    static func withLockedStore(
        _ location: String, locking: LockOptions, _ body: (any RecordStore) throws -> Int32
    ) throws -> Int32 {
        if !RecordStores.isURL(location), !FileManager.default.fileExists(atPath: location) {
            throw RederiveError.usage("\(location): no such store (`rederive import` creates one)")
        }
        let lock = try locking.acquire(store: location)
        defer { lock?.release() }
        let store = try RecordStores.open(location, mode: .existing)
        defer { store.close() }
        return try body(store)
    }

    /// Refuses a PostgreSQL store for a command that works on SQLite stores only (so far).
    static func refuseURL(_ location: String, command: String) throws(RederiveError) {
        if RecordStores.isURL(location) {
            throw .usage("\(command) works on SQLite stores only so far; \(location) is a server store")
        }
    }

    /// The store `location` names (a SQLite file as `openReadOnly`, or a server URL),
    /// opened read-only, for the commands that work on either engine (`status`, dry runs).
    static func open(_ location: String) throws(RederiveError) -> any RecordStore {
        if RecordStores.isURL(location) { return try RecordStores.open(location, mode: .readOnly) }
        return try openReadOnly(location)
    }
}
