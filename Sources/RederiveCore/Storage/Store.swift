import Foundation
import GRDB

/// The embedded SQLite store (WAL): raw rooms kept byte-exact, derived summaries beside
/// them, run history and the failure ledger. One writer at a time; reads may run alongside.
public final class Store: @unchecked Sendable {
    /// The database file.
    public let path: String
    /// Whether the store was opened read-only.
    public let readOnly: Bool
    /// Where the pre-migration copy went, when opening migrated an existing store.
    public private(set) var backupPath: String?
    let pool: DatabasePool

    /// Opens (creating when absent) the store at `path` and brings its schema up to date.
    ///
    /// A store written by a newer rederive (migrations this build does not know) is refused
    /// and left byte-identical. Before a migration changes an existing store, a copy of it is
    /// taken next to it (`PATH.backup-<migration>`).
    ///
    /// `readOnly` opens an existing, up-to-date store without writing anything to it (status,
    /// export, dry runs): the file stays byte-identical.
    public init(path: String, readOnly: Bool = false) throws(RederiveError) {
        self.path = path
        self.readOnly = readOnly
        let migrator = StoreSchema.migrator
        let exists = FileManager.default.fileExists(atPath: path)
        var pendingOnExisting = false
        if exists {
            pendingOnExisting = try Self.inspect(path: path, migrator: migrator)
        } else if readOnly {
            throw .usage("\(path): no such store")
        } else {
            let dir = (path as NSString).deletingLastPathComponent
            if !dir.isEmpty, !FileManager.default.fileExists(atPath: dir) {
                do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                    throw .io("\(path): cannot create its directory: \(error.localizedDescription)")
                }
            }
            try Self.create(path: path)
        }
        var config = Configuration()
        config.busyMode = .timeout(30)
        config.readonly = readOnly
        if !readOnly {
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                try db.execute(sql: "PRAGMA foreign_keys = ON")
            }
        }
        do {
            pool = try DatabasePool(path: path, configuration: config)
        } catch {
            throw .io("\(path): cannot open the store: \(error)")
        }
        if readOnly {
            let current = (try? pool.read { try migrator.hasCompletedMigrations($0) }) ?? false
            if !current {
                throw .io("\(path): the store's schema is older than this build; run `rederive import` or `rederive derive` once to migrate it")
            }
            return
        }
        do {
            if pendingOnExisting {
                let backup = path + ".backup-" + (try pool.read { try migrator.appliedMigrations($0).last ?? "empty" })
                try pool.backup(to: try DatabaseQueue(path: backup))
                backupPath = backup
            }
            try migrator.migrate(pool)
        } catch {
            throw .io("\(path): cannot migrate the store: \(error)")
        }
    }

    /// Page size of new stores. Raw rooms are ~100 KB blobs: 64 KB pages cut the number of
    /// overflow pages, WAL frames and write calls per record 16-fold against SQLite's 4 KB.
    static let pageSize = 65_536

    // Creates an empty store with its page size fixed (it cannot change once in WAL mode).
    private static func create(path: String) throws(RederiveError) {
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA page_size = \(pageSize)")
                try db.execute(sql: "PRAGMA journal_mode = WAL")
            }
            try queue.close()
        } catch {
            throw .io("\(path): cannot create the store: \(error)")
        }
    }

    // Reads an existing file without writing to it. Returns whether migrations are pending
    // on a non-empty store; throws when the store is newer than this build or not a store.
    private static func inspect(path: String, migrator: DatabaseMigrator) throws(RederiveError) -> Bool {
        let history = try SchemaHistoryReader.read(path: path)
        guard let applied = history.applied else {
            if !history.tables.isEmpty {
                throw RederiveError.io("\(path): not a rederive store (it has tables but no schema history); refusing to touch it")
            }
            return false
        }
        let known = Set(migrator.migrations)
        let unknown = Set(applied).subtracting(known)
        if !unknown.isEmpty {
            throw RederiveError.io(
                "\(path): this store was written by a newer rederive (schema migrations \(unknown.sorted().joined(separator: ", ")) are unknown to this build); refusing to open it. Use a newer rederive (this is rederive \(RederiveVersion.release), store schema \(Store.schemaVersion); see `rederive --version`); the file was not modified.")
        }
        return !applied.isEmpty && applied.count < known.count
    }

    /// Checkpoints the WAL into the main file and closes the store.
    public func close() {
        if !readOnly { _ = try? pool.writeWithoutTransaction { try $0.checkpoint(.truncate) } }
        try? pool.close()
    }

    /// The current time as stored (ISO 8601 UTC with milliseconds).
    static func now() -> String {
        ReferenceDate.iso8601(secondsSinceReferenceDate: Date().timeIntervalSinceReferenceDate)
    }
}
