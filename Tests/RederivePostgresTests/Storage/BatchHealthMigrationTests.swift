import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// The batch record's health columns come in a migration of their own on each engine
/// (`v6-batch-health`, `pg-v7-batch-health`): a store recorded before it is read as it is by
/// `status --run N` (no health kept, no refusal), and the next writing command adds them.
final class BatchHealthMigrationTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    private let exports = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path
    private let derive = ["derive", "--all", "--rewrite", "--batch-size", "8", "-q"]

    /// `status --run N --json` of `db`: the batches' claim health (NSNull when none).
    private func claimHealth(_ db: String, run: Int) throws -> [Any] {
        let r = try rederive(["status", "--db", db, "--run", String(run), "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any])
        return try XCTUnwrap(object["batches"] as? [[String: Any]]).map { $0["claimHealth"] ?? NSNull() }
    }

    func testSQLiteReadsAStoreWithoutTheColumnsThenAddsThem() throws {
        let db = dir.file("rooms.sqlite")
        XCTAssertEqual(try rederive(["import", exports, "--db", db, "-q"]).status, 0)
        XCTAssertEqual(try rederive(derive + ["--db", db]).status, 0)
        XCTAssertTrue(try claimHealth(db, run: 2).allSatisfy { $0 is [String: Any] }, "this build keeps it")
        // What a store recorded before v6-batch-health looks like.
        for sql in [
            "ALTER TABLE run_batch DROP COLUMN claim_health", "ALTER TABLE run_batch DROP COLUMN commit_health",
            "DELETE FROM grdb_migrations WHERE identifier = 'v6-batch-health'",
        ] {
            try StoreInspection.execute(db, sql)
        }
        let old = try claimHealth(db, run: 2)
        XCTAssertEqual(old.count, 4)
        XCTAssertTrue(old.allSatisfy { $0 is NSNull }, "read as it is: no health kept")
        XCTAssertEqual(try StoreInspection.int(db, "SELECT count(*) FROM grdb_migrations"), 5, "nothing migrated")
        XCTAssertEqual(try rederive(derive + ["--db", db]).status, 0)
        XCTAssertEqual(
            try StoreInspection.int(db, "SELECT count(*) FROM run_batch WHERE claim_health IS NOT NULL"), 4,
            "migrated by the next derive, whose batches keep their health")
    }

    func testPostgreSQLReadsAStoreWithoutTheColumnsThenAddsThem() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.newDatabase()
        XCTAssertEqual(try rederive(["import", exports, "--db", url, "-q"]).status, 0)
        XCTAssertEqual(try rederive(derive + ["--db", url]).status, 0)
        XCTAssertTrue(try claimHealth(url, run: 2).allSatisfy { $0 is [String: Any] }, "this build keeps it")
        try cluster.sql("ALTER TABLE run_batch DROP COLUMN claim_health, DROP COLUMN commit_health", url: url)
        try cluster.sql("DELETE FROM schema_migration WHERE name = 'pg-v7-batch-health'", url: url)
        let old = try claimHealth(url, run: 2)
        XCTAssertFalse(old.isEmpty)
        XCTAssertTrue(old.allSatisfy { $0 is NSNull }, "read as it is: no health kept")
        XCTAssertEqual(
            try cluster.sql("SELECT count(*) FROM schema_migration WHERE name = 'pg-v7-batch-health'", url: url), ["0"])
        XCTAssertEqual(try rederive(derive + ["--db", url]).status, 0)
        XCTAssertEqual(
            try cluster.sql("SELECT count(*) > 0 FROM run_batch WHERE claim_health IS NOT NULL", url: url), ["t"])
    }
}
