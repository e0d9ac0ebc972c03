import RederiveCore

extension SQLiteStore: RecordStore {
    /// SQLite's next run id is the highest plus one.
    package var runIDFixups: [String] { [] }

    /// SQLite runs one writing process per store (`RunLock`): nothing to claim.
    package var rangeClaims: (any DeriveRangeClaims)? { nil }

    /// Registers the engine for store files (a location no other engine reads: a path),
    /// with its schema for `rederive --version`. The command line calls it at start-up.
    package static func register() {
        RecordStores.register(
            StoreEngine(
                name: "SQLite", capabilities: .init(localFile: true, singleWriterLockFile: true),
                schemaVersion: schemaVersion,
                check: { path, mode throws(RederiveError) in try SQLiteStore.check(path: path, mode: mode) },
                open: { path, mode throws(RederiveError) in try SQLiteStore(path: path, mode: mode) }))
    }
}
