import Foundation
import RederiveCore

/// Opens a store that must already exist, read-only, for the inspecting commands (`status`,
/// `show`, `failures`): never creates, migrates or writes anything.
enum ExistingStore {
    /// The store at `path`, opened read-only. A missing path or a directory is a usage error
    /// (exit 1) named as such, not SQLite's "disk I/O error".
    static func openReadOnly(_ path: String) throws(RederiveError) -> Store {
        try refuseURL(path, command: "this command")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .usage("\(path): no such store (`rederive import` creates one)")
        }
        if isDirectory.boolValue {
            throw .usage("\(path): is a directory, not a store file (give the .sqlite file inside it)")
        }
        return try Store(path: path, readOnly: true)
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
        if RecordStores.isURL(location) { return try RecordStores.open(location, readOnly: true) }
        return try openReadOnly(location)
    }
}
