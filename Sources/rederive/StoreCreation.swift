import ArgumentParser
import Foundation
import RederiveCore

/// `--create-dirs` and the opening it governs, for the commands that create their store when
/// it is absent (`import`, `copy-store`, and `run` for its stages): a store's missing folder is
/// created only when asked, so a mistyped path is an error rather than a second store
/// (`StoreFolderCheck`). Declared once, with the help `Command` words for its store.
struct StoreCreation<Command: CreateDirsHelp>: ParsableArguments {
    @Flag(name: .customLong("create-dirs"), help: ArgumentHelp(Command.createDirsHelp))
    var createDirs = false

    /// Runs `body` with the store `location` names opened for writing, created when absent (a
    /// notice says so; its folder too with `--create-dirs`, else a missing one is a usage
    /// error), holding its run lock (taken as `locking` says; a server store has none) until
    /// `body` returns, with the clean-stop signal handlers installed. Every check runs before
    /// the store is created. (`ExistingStore.withLockedStore` opens a store that must exist.)
    func withLockedStore(
        _ location: String, locking: LockOptions, _ body: (any RecordStore) throws -> ExitStatus
    ) throws -> ExitStatus {
        try StoreFolderCheck.check(location, createDirs: createDirs)
        try RecordStores.check(location, mode: .createIfMissing)  // before the lock: see RunLock
        if StoreLocation(location).filePath != nil, !FileManager.default.fileExists(atPath: location) {
            logger.notice("creating a new store at \(location)")
        }
        let lock = try locking.acquire(store: location)
        defer { lock?.release() }
        let store = try RecordStores.open(location, mode: .createIfMissing)
        defer { store.close() }
        RunControl.installSignalHandlers()
        return try body(store)
    }
}
