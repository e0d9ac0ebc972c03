import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Read-only commands on a store the previous build made (migrations v3 and v4, which only
/// add the acknowledgement and faulted-file tables, not applied yet): they work, reading
/// those tables as empty, and leave the file byte-identical; the next import migrates it. A
/// store behind by a migration readers need is still refused with what to run.
final class OlderSchemaReadCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var db = ""

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        db = dir.file("rooms.sqlite")
    }

    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    /// Imports the corrupt fixtures, then takes the store back to the schema before `migrations`.
    private func olderStore(without migrations: [String], tables: [String]) throws {
        let r = try rederive(["import", "Fixtures/corrupt/corrupt-records.jsonl", "--db", db, "--quiet"])
        XCTAssertEqual(r.status, ExitStatus.skippedRecords.rawValue, r.stderr)
        let queue = try DatabaseQueue(path: db)
        try queue.write { db in
            for table in tables { try db.execute(sql: "DROP TABLE \(table)") }
            for migration in migrations {
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [migration])
            }
        }
        try queue.close()
    }

    func testReadOnlyCommandsReadAStoreTheMigrationsBehindOnlyAddTables() throws {
        try olderStore(without: ["v3-failure-ack", "v4-faulted-files"], tables: ["failure_ack", "faulted_file"])
        let before = StoreInspection.fileBytes(db)[""]

        let check = try rederive(["status", "--db", db, "--check"])
        XCTAssertEqual(check.status, 5, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.hasPrefix("13 open failures"), check.stdout)
        XCTAssertFalse(check.stderr.contains("schema is older"), check.stderr)
        XCTAssertEqual(try rederive(["status", "--db", db, "--check", "--max-open-failures", "13"]).status, 0)
        let status = try rederive(["status", "--db", db, "--json"])
        XCTAssertEqual(status.status, 0, status.stderr)
        let failures = try rederive(["failures", "--db", db, "--json"])
        XCTAssertEqual(failures.status, 0, failures.stderr)
        let listed = try XCTUnwrap(JSONSerialization.jsonObject(with: failures.stdoutData) as? [String: Any])
        XCTAssertEqual(listed["count"] as? Int, 13)
        XCTAssertEqual(try rederive(["failures", "--db", db, "--acknowledged"]).status, 0)
        let id = "074125BB-8C2A-4749-9543-8902F78EF811"  // a record the corrupt fixture stores
        let history = try rederive(["history", "--id", id, "--db", db])
        XCTAssertEqual(history.status, 0, history.stderr)
        let show = try rederive(["show", id, "--db", db])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertEqual(StoreInspection.fileBytes(db)[""], before, "read-only commands leave the store byte-identical")

        // A writing command migrates it; acknowledging then works and the check clears.
        let ack = try rederive(["failures", "--db", db, "--ack", "--file", "corrupt-records.jsonl"])
        XCTAssertEqual(ack.stdout, "acknowledged 13 failures\n", ack.stderr)
        XCTAssertEqual(try rederive(["status", "--db", db, "--check"]).status, 0)
    }

    func testAStoreBehindByATableReadersNeedIsRefusedWithWhatToRun() throws {
        try olderStore(
            without: ["v2-summary-history", "v3-failure-ack", "v4-faulted-files"],
            tables: ["summary_history", "failure_ack", "faulted_file"])
        let check = try rederive(["status", "--db", db, "--check"])
        XCTAssertEqual(check.status, ExitStatus.failure.rawValue, check.stderr)
        XCTAssertTrue(check.stderr.contains("schema is older than this build"), check.stderr)
        XCTAssertTrue(check.stderr.contains("rederive import"), check.stderr)
    }
}
