import Foundation
import GRDB
import XCTest

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveSQLite

/// The summary columns of both engines' live schemas (after every migration), column by
/// column: the same names in the same order, the same kind and nullability, and exactly
/// the `SummaryColumn` table the engines generate their statements from.
final class SummarySchemaTests: XCTestCase {
    private struct Column: Equatable, CustomStringConvertible {
        var name: String
        var kind: SummaryColumn.Kind?
        var nullable: Bool
        var description: String { "\(name) \(kind.map { "\($0)" } ?? "?")\(nullable ? " NULL" : "")" }
    }

    private static let keys: Set<String> = ["record_seq", "replaced_by_run", "replaced_at"]

    private func sqliteColumns(_ table: String, _ path: String) throws -> [Column] {
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        return try store.pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT name, type, \"notnull\" AS nn FROM pragma_table_info(?) ORDER BY cid",
                arguments: [table])
        }.map { row -> Column in
            let type: String = row["type"]
            let kind: SummaryColumn.Kind? =
                // An added column's standard SQL type (`SummaryColumnAddition`) has the same affinity.
                switch type.uppercased() {
                case "INTEGER", "BIGINT": .integer
                case "REAL", "DOUBLE PRECISION": .real
                case "TEXT": .text
                default: nil
                }
            return Column(name: row["name"], kind: kind, nullable: (row["nn"] as Int) == 0)
        }.filter { !Self.keys.contains($0.name) }
    }

    private func postgresColumns(_ table: String, _ cluster: PostgresCluster, _ url: String) throws -> [Column] {
        try cluster.sql(
            """
            SELECT column_name || '|' || data_type || '|' || is_nullable FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = '\(table)' ORDER BY ordinal_position
            """, url: url
        ).map { line -> Column in
            let parts = line.split(separator: "|").map(String.init)
            let kind: SummaryColumn.Kind? =
                switch parts[1] {
                case "integer", "bigint": .integer
                case "double precision": .real
                case "text": .text
                default: nil
                }
            return Column(name: parts[0], kind: kind, nullable: parts[2] == "YES")
        }.filter { !Self.keys.contains($0.name) }
    }

    func testBothEnginesHoldTheColumnTable() throws {
        let dir = try TemporaryDirectory()
        let cluster = try PostgresCluster.shared()
        let url = try cluster.newDatabase()
        let server = try PostgresStore(url: url)  // creates and migrates the schema
        server.close()
        let table = SummaryColumn.allCases.map { Column(name: $0.name, kind: $0.kind, nullable: $0.isNullable) }
        for name in ["summary", "summary_history"] {
            let sqlite = try sqliteColumns(name, dir.file("schema.sqlite"))
            let postgres = try postgresColumns(name, cluster, url)
            XCTAssertEqual(sqlite, table, "SQLite \(name)")
            XCTAssertEqual(postgres, table, "PostgreSQL \(name)")
        }
    }
}
