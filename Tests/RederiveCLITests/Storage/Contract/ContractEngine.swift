import Foundation
import GRDB

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// An engine the store contract runs on: how a test makes a new empty store of it, and runs
/// plain SQL against one, and reads a table's columns. A new engine's contract cost is one
/// entry in `all`.
struct ContractEngine: Sendable {
    /// The engine's name, as failures name it.
    var name: String
    /// A new empty store's location (a temporary file, a throwaway database), the engine registered.
    var makeLocation: @Sendable (_ dir: TemporaryDirectory) throws -> String
    /// Runs `sql` against the store at a location.
    var execute: @Sendable (_ location: String, _ sql: String) throws -> Void
    /// Records a schema migration as applied, as a newer build would (without this build's checks).
    var recordMigration: @Sendable (_ location: String, _ name: String) throws -> Void
    /// A table's columns in their order: name, the type as the engine names it, nullability.
    var columns: @Sendable (_ location: String, _ table: String) throws -> [Column]

    /// One column of a live table, as the engine's catalogue describes it.
    struct Column: Equatable, Sendable {
        var name: String
        var type: String
        var nullable: Bool
    }

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
        },
        recordMigration: { location, name in
            let queue = try DatabaseQueue(path: location)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [name])
                try db.checkpoint(.truncate)
            }
            try queue.close()
        },
        columns: { location, table in
            let store = try SQLiteStore(path: location, mode: .existing)
            defer { store.close() }
            return try store.pool.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT name, type, \"notnull\" AS nn FROM pragma_table_info(?) ORDER BY cid",
                    arguments: [table])
            }.map { Column(name: $0["name"], type: $0["type"], nullable: ($0["nn"] as Int) == 0) }
        })

    /// The PostgreSQL engine (a new database in the tests' throwaway cluster, `PostgresCluster`).
    static let postgres = ContractEngine(
        name: "PostgreSQL",
        makeLocation: { _ in
            PostgresStore.register()
            return try PostgresCluster.shared().newDatabase()
        },
        execute: { location, sql in _ = try PostgresCluster.shared().sql(sql, url: location) },
        recordMigration: { location, name in
            _ = try PostgresCluster.shared().sql(
                "INSERT INTO schema_migration VALUES ('\(name)', now())", url: location)
        },
        columns: { location, table in
            try PostgresCluster.shared().sql(
                """
                SELECT column_name || '|' || data_type || '|' || is_nullable FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = '\(table)' ORDER BY ordinal_position
                """, url: location
            ).map { line in
                let parts = line.split(separator: "|").map(String.init)
                return Column(name: parts[0], type: parts[1], nullable: parts[2] == "YES")
            }
        })
}
