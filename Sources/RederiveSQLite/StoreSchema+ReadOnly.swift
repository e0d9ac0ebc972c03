import Foundation
import GRDB
import RederiveCore

/// How a read-only command (status, failures, show, history, dry runs) reads a store one or
/// two migrations behind this build: the migrations after v2 only add tables a reader can do
/// without (no acknowledgement, no faulted file yet), so instead of refusing the store until
/// an import or a derive migrates it (a monitoring check that errors after every upgrade),
/// each connection gets an empty TEMP stand-in for each missing table; a summary column added
/// later (`SummaryColumnAddition`) needs none, as no reader selects one. The file is not
/// touched; the next writing command migrates it as before.
extension StoreSchema {
    /// The migrations a read-only open can do without, each with its stand-in: the table the
    /// migration creates, from the migration's own DDL, as a TEMP table (which SQLite creates
    /// on a read-only connection, in the connection's own temporary database).
    static let readableWithout: [(migration: String, table: String, standIn: String)] = [
        ("v3-failure-ack", "failure_ack", standIn(failureAckDDL)),
        ("v4-faulted-files", "faulted_file", standIn(faultedFileDDL)),
        ("v5-run-batch-and-control", "run_batch", standIn(runBatchDDL)),
        ("v5-run-batch-and-control", "run_control", standIn(runControlDDL)),
    ]

    /// Migrations that only add nullable columns a reader does without: it selects `*` and
    /// reads a missing column as NULL (`v6-batch-health`: no health kept per batch).
    static let readableWithoutColumns: Set<String> = ["v6-batch-health"]

    /// `ddl`'s `CREATE TABLE` as `CREATE TEMP TABLE IF NOT EXISTS`.
    private static func standIn(_ ddl: String) -> String {
        ddl.replacingOccurrences(of: "CREATE TABLE ", with: "CREATE TEMP TABLE IF NOT EXISTS ")
    }

    /// Whether a read-only open can read a store whose applied migrations are `applied`:
    /// every migration it lacks is one of `readableWithout` or adds a summary column
    /// (`SummaryColumnAddition`: no reader selects one).
    static func isReadable(applied: [String], additions: [SummaryColumnAddition] = SummaryColumn.additions) -> Bool {
        let missing = Set(migrator(adding: additions).migrations).subtracting(applied)
        return missing.isSubset(
            of: readableWithout.map(\.migration) + readableWithoutColumns + additions.map(\.migrationName))
    }

    /// Creates, on one read-only connection, an empty stand-in for each table of
    /// `readableWithout` the store does not have.
    static func createStandIns(_ db: Database) throws {
        for entry in readableWithout where try !db.tableExists(entry.table, in: "main") {
            try db.execute(sql: entry.standIn)
        }
    }
}
