import Foundation

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveSQLite

/// An engine the store contract runs on: how a test makes a new empty store of it, and runs
/// plain SQL against one. A new engine's contract cost is one entry in `all`.
struct ContractEngine: Sendable {
    /// The engine's name, as failures name it.
    var name: String
    /// A new empty store's location (a temporary file, a throwaway database), the engine registered.
    var makeLocation: @Sendable (_ dir: TemporaryDirectory) throws -> String
    /// Runs `sql` against the store at a location.
    var execute: @Sendable (_ location: String, _ sql: String) throws -> Void

    /// Every engine the contract runs on.
    static let all: [ContractEngine] = [.sqlite, .postgres]

    /// The embedded SQLite engine (a temporary file).
    static let sqlite = ContractEngine(
        name: "SQLite",
        makeLocation: { dir in
            SQLiteStore.register()
            return dir.file("contract-\(UUID().uuidString.prefix(8)).sqlite")
        },
        execute: { location, sql in
            let store = try SQLiteStore(path: location, mode: .existing)
            defer { store.close() }
            try StoreFixtures.execute(store, sql)
        })

    /// The PostgreSQL engine (a new database in the tests' throwaway cluster, `PostgresCluster`).
    static let postgres = ContractEngine(
        name: "PostgreSQL",
        makeLocation: { _ in
            PostgresStore.register()
            return try PostgresCluster.shared().newDatabase()
        },
        execute: { location, sql in _ = try PostgresCluster.shared().sql(sql, url: location) })
}
