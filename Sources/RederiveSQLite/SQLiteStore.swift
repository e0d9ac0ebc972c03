import Foundation
import RederiveCore
import GRDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The embedded SQLite store (WAL): raw rooms kept byte-exact, derived summaries beside
/// them, run history and the failure ledger. One writer at a time; reads may run alongside.
public final class SQLiteStore: @unchecked Sendable {
    /// How a command may open its store (the engine-neutral `StoreOpenMode`).
    public typealias OpenMode = StoreOpenMode

    /// The database file.
    public let path: String
    /// Whether the store was opened read-only.
    public let readOnly: Bool
    /// Where the pre-migration copy went, when opening migrated an existing store.
    public private(set) var backupPath: String?
    /// The store's connections (the engine's own statements; tests read and write through it too).
    package let pool: DatabasePool
    /// The busy handler of every connection, which sums the time they waited for a lock.
    let lockWaits: SQLiteLockWaits
    /// Copies the WAL back into the store on a connection and thread of its own, off the writer's
    /// commits; the server-health read (`readHealth`) asks for its passes there too. Nil read-only.
    let checkpointer: WALCheckpointer?
    /// Starts the WAL's writeback after each import batch (see `FileWriteback`).
    let walWriteback: FileWriteback
    /// Starts the store file's writeback after each checkpoint pass; closed after the pool.
    let storeWriteback: FileWriteback

    /// Opens (creating when absent) the store at `path` and brings its schema up to date.
    ///
    /// A store written by a newer rederive (migrations this build does not know) is refused
    /// and left byte-identical. Before a migration changes an existing store, a copy of it is
    /// taken next to it (`PATH.backup-<migration>`).
    ///
    /// `readOnly` opens an existing, up-to-date store without writing anything to it (status,
    /// export, dry runs): the file stays byte-identical.
    ///
    /// Read-only stores also open on read-only media and in read-only directories, where
    /// SQLite cannot create the `-shm` (and `-wal`) files a WAL database normally needs: the
    /// main file is then read as `immutable` (see `openReadOnly`).
    public convenience init(path: String, readOnly: Bool = false) throws(RederiveError) {
        try self.init(path: path, readOnly: readOnly, forceImmutable: false)
    }

    /// Opens the store at `path` as `mode` allows (see `init(path:readOnly:)`); with
    /// `.existing` or `.readOnly` a missing store is a usage error naming the fix.
    public convenience init(path: String, mode: OpenMode) throws(RederiveError) {
        if mode != .createIfMissing, !FileManager.default.fileExists(atPath: path) {
            throw .usage("\(path): no such store (`rederive import` creates one)")
        }
        try self.init(path: path, readOnly: mode == .readOnly, forceImmutable: false)
    }

    /// `forceImmutable` skips straight to the read-only media fallback (tests run as root,
    /// where permissions do not stop SQLite creating files).
    /// `additions`: the summary columns this build added (`SummaryColumn.additions`; a test
    /// names a build one column ahead). `checkpoints`: when the WAL is copied back (tests use
    /// small ones).
    init(
        path: String, readOnly: Bool, forceImmutable: Bool,
        additions: [SummaryColumnAddition] = SummaryColumn.additions,
        checkpoints: WALCheckpointer.Limits = WALCheckpointer.Limits()
    ) throws(RederiveError) {
        self.path = path
        self.readOnly = readOnly
        let migrator = StoreSchema.migrator(adding: additions)
        try Self.refuseLink(path)
        var info = stat()
        let exists = stat(path, &info) == 0
        if exists { try Self.requireRegularFile(path, info) }
        // A 0-byte file is what a store creation that failed early leaves behind: it holds
        // nothing, so it is created anew (page size first), not opened with SQLite's defaults.
        let empty = exists && info.st_size == 0
        var pendingOnExisting = false
        if exists && empty && readOnly {
            throw .usage("\(path): is an empty file, not a store yet")
        } else if exists && !empty {
            try Self.checkHeader(path: path, size: Int64(info.st_size))
            pendingOnExisting = try Self.inspectSchema(path: path, additions: additions)
        } else if readOnly {
            throw .usage("\(path): no such store")
        } else {
            let dir = OutputFile.folder(of: path)
            if !dir.isEmpty, !FileManager.default.fileExists(atPath: dir) {
                do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                    throw .io("\(path): cannot create its directory: \(error.localizedDescription)")
                }
            }
            try Self.create(path: path, existing: exists)
        }
        let lockWaits = SQLiteLockWaits(timeout: 30)
        self.lockWaits = lockWaits
        walWriteback = FileWriteback.wal(ofStore: path)
        let storeWriteback = FileWriteback.store(path)
        self.storeWriteback = storeWriteback
        var config = Configuration()
        config.busyMode = lockWaits.busyMode
        config.readonly = readOnly
        if readOnly {
            checkpointer = nil
        } else {
            let checkpointer: WALCheckpointer
            do {
                checkpointer = try WALCheckpointer(
                    path: path, limits: checkpoints, busyMode: lockWaits.busyMode, storeWriteback: storeWriteback)
            } catch {
                throw .io("\(path): cannot open the store: \(error)")
            }
            self.checkpointer = checkpointer
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                try db.execute(sql: "PRAGMA foreign_keys = ON")
                checkpointer.install(on: db)
            }
        }
        if readOnly {
            // A store behind only by tables a reader can do without is read with empty stand-ins.
            config.prepareDatabase { db in try StoreSchema.createStandIns(db) }
            pool = try Self.openReadOnly(path: path, configuration: config, forceImmutable: forceImmutable)
            let applied = (try? pool.read { try migrator.appliedMigrations($0) }) ?? []
            if !StoreSchema.isReadable(applied: applied, additions: additions) {
                throw .io(
                    "\(path): the store's schema is older than this build; "
                        + "run `rederive import` or `rederive derive` once to migrate it"
                )
            }
            return
        }
        do {
            pool = try DatabasePool(path: path, configuration: config)
        } catch {
            checkpointer?.stop()
            throw .io("\(path): cannot open the store: \(error)")
        }
        do {
            if pendingOnExisting {
                let backup = path + ".backup-" + (try pool.read { try migrator.appliedMigrations($0).last ?? "empty" })
                try Self.writeBackup(of: pool, to: backup)
                backupPath = backup
            }
            try migrator.migrate(pool)
        } catch {
            throw .io("\(path): cannot migrate the store: \(error)")
        }
    }

    // A store dropped without `close()` (tests) stops its checkpointer's thread all the same,
    // and closes the store file's writeback descriptor once no connection of its is left open.
    deinit {
        checkpointer?.stop()
        if (try? pool.close()) != nil { storeWriteback.close() }
    }

    // The pre-migration copy, written where no one else can plant a link (a fresh 0700
    // folder beside the store, made by mkdtemp), then renamed to `backup`. An existing
    // `backup` that is a link or not a regular file is refused: nothing is migrated.
    private static func writeBackup(of pool: DatabasePool, to backup: String) throws {
        var info = stat()
        if lstat(backup, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw RederiveError.io(
                "\(backup): exists and is not a regular file (a symbolic link?); refusing to write the "
                    + "pre-migration copy through it; the store was not migrated")
        }
        let folder = OutputFile.folder(of: backup)
        var template = Array(((folder.isEmpty ? "." : folder) + "/.rederive-backup-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw RederiveError.io("\(backup): cannot create a temporary folder: \(String(cString: strerror(errno)))")
        }
        let directory = String(cString: made)
        TemporaryFiles.register(directory)
        let temporary = directory + "/backup.sqlite"
        TemporaryFiles.register(temporary)  // in our own 0700 folder: no one else's file
        defer {
            for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary + suffix) }
            rmdir(directory)
            TemporaryFiles.forget(temporary)
            TemporaryFiles.forget(directory)
        }
        let queue = try DatabaseQueue(path: temporary)
        try pool.backup(to: queue)
        try queue.close()
        guard rename(temporary, backup) == 0 else {
            throw RederiveError.io("\(backup): cannot put the copy in place: \(String(cString: strerror(errno)))")
        }
    }

    /// Page size of new stores. Raw rooms are ~100 KB blobs: 64 KB pages cut the number of
    /// overflow pages, WAL frames and write calls per record 16-fold against SQLite's 4 KB.
    static let pageSize = 65_536

    // Creates an empty store with its page size fixed (it cannot change once in WAL mode).
    // On failure nothing this call created is left behind (a 0-byte file would otherwise be
    // taken for a store), and nothing it did not create is removed: the new file is created
    // here exclusively, never through a planted link, and only the companion files that
    // were absent before are removed. `existing`: an empty regular file is already there.
    private static func create(path: String, existing: Bool) throws(RederiveError) {
        let companions = ["-wal", "-shm", "-journal"].filter { access(path + $0, F_OK) != 0 }
        if !existing {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            guard fd >= 0 else {
                throw .io("\(path): cannot create the store: \(String(cString: strerror(errno)))")
            }
            Glibc.close(fd)
        }
        do {
            // Switching to WAL needs the file to itself: a reader that opens the new file at
            // that moment (a monitor, `status`) must make creation wait, not fail.
            var config = Configuration()
            config.busyMode = .timeout(10)
            let queue = try DatabaseQueue(path: path, configuration: config)
            do {
                try queue.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA page_size = \(pageSize)")
                    try db.execute(sql: "PRAGMA journal_mode = WAL")
                }
                try queue.close()
            } catch {
                try? queue.close()
                throw error
            }
        } catch {
            for suffix in (existing ? [] : [""]) + companions { unlink(path + suffix) }
            throw .io("\(path): cannot create the store: \(error)")
        }
    }

    // A read-only pool. SQLite's read-only connection to a WAL database needs the `-shm`
    // file (and creates it and `-wal` when absent): on read-only media or in a read-only
    // directory that fails ("unable to open database file", "attempt to write a readonly
    // database"). The store is then opened as `immutable`: no locks, no companion files,
    // the main file alone. That is the whole store when there is no `-wal` or an empty one
    // (every writer checkpoints at close); a non-empty `-wal` that cannot be read through
    // its index holds commits the main file lacks, so that case is refused, not misread.
    private static func openReadOnly(
        path: String, configuration: Configuration,
        forceImmutable: Bool
    ) throws(RederiveError) -> DatabasePool {
        var firstError: Error?
        if !forceImmutable {
            do {
                let pool = try DatabasePool(path: path, configuration: configuration)
                // Opening is lazy: the first read is what needs the -shm file.
                try pool.read { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
                return pool
            } catch {
                firstError = error
            }
        }
        var walInfo = stat()
        if stat(path + "-wal", &walInfo) == 0, walInfo.st_size > 0 {
            throw .io(
                "\(path): cannot open the store read-only (\(firstError.map { "\($0)" } ?? "forced")), and its "
                    + "\(path)-wal holds \(walInfo.st_size) bytes of changes that can only be read "
                    + "with write access to the directory; open it once where it is writable "
                    + "(any rederive command checkpoints it)")
        }
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let uri = "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?immutable=1"
        do {
            let pool = try DatabasePool(path: uri, configuration: configuration)
            try pool.read { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return pool
        } catch {
            throw .io("\(path): cannot open the store read-only: \(firstError ?? error)")
        }
    }

    // Reads an existing file without writing to it. Returns whether migrations are pending
    // on a non-empty store; throws when the store is newer than this build or not a store.
    static func inspectSchema(
        path: String, additions: [SummaryColumnAddition] = SummaryColumn.additions
    ) throws(RederiveError) -> Bool {
        let migrator = StoreSchema.migrator(adding: additions)
        let history = try SchemaHistoryReader.read(path: path)
        guard let applied = history.applied else {
            if !history.tables.isEmpty {
                throw RederiveError.io(
                    "\(path): not a rederive store (it has tables but no schema history); refusing to touch it")
            }
            return false
        }
        let known = Set(migrator.migrations)
        let unknown = Set(applied).subtracting(known)
        if !unknown.isEmpty {
            let migrations = unknown.sorted().joined(separator: ", ")
            throw RederiveError.io(
                "\(path): this store was written by a newer rederive (schema migrations \(migrations) are unknown "
                    + "to this build); refusing to open it. Use a newer rederive (this is rederive "
                    + "\(RederiveVersion.release), store schema \(SQLiteStore.schemaVersion); "
                    + "see `rederive --version`); the file was not modified."
            )
        }
        return !applied.isEmpty && applied.count < known.count
    }

    /// Checkpoints the WAL into the main file and closes the store, without waiting.
    ///
    /// A `TRUNCATE` checkpoint waits (through the busy timeout, 30 s) for every reader of the
    /// WAL to finish, so one open `status` or reader held every writing command at exit.
    /// With the busy timeout at 0 it copies what it can at once, like `PASSIVE`, and leaves
    /// the rest (and the WAL file's size) to the next writer when a reader is in the way.
    /// The checkpointer's thread stops first (after its pass under way), so it holds nothing up;
    /// its passes started the store file's writeback, so the `TRUNCATE`'s sync finds little to write.
    public func close() {
        checkpointer?.stop()
        // Readers first: a read-only connection that closed last could not checkpoint, and the
        // store would keep its -wal and -shm files after the run.
        pool.invalidateReadOnlyConnections()
        if !readOnly {
            _ = try? pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA busy_timeout = 0")
                try db.checkpoint(.truncate)
            }
        }
        // Only now: closing the descriptor drops the POSIX locks the connections held on the file.
        if (try? pool.close()) != nil { storeWriteback.close() }
    }

    /// The current time as stored (ISO 8601 UTC with milliseconds).
    static func now() -> String {
        ReferenceDate.iso8601(secondsSinceReferenceDate: Date().timeIntervalSinceReferenceDate)
    }
}
