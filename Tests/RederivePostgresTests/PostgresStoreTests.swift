import Foundation
import RederivePostgres
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// The PostgreSQL engine against a real server (`PostgresCluster`), through the command
/// line: the same store concepts and jobs as SQLite, and the derive split across worker
/// processes that claim ranges in the database.
final class PostgresStoreTests: XCTestCase {
    var cluster: PostgresCluster!
    var url = ""
    var dir = ""

    override func setUpWithError() throws {
        cluster = try PostgresCluster.shared()
        url = try cluster.newDatabase()
        dir = NSTemporaryDirectory() + "rederive-pgtest-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        unsetenv("REDERIVE_LEASE_SECONDS")
        unsetenv("REDERIVE_MAX_ATTEMPTS")
    }

    override func tearDownWithError() throws {
        unsetenv("REDERIVE_LEASE_SECONDS")
        unsetenv("REDERIVE_MAX_ATTEMPTS")
        try? FileManager.default.removeItem(atPath: dir)
    }

    var exports: String { RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path }

    @discardableResult
    func rederive(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Int32 {
        try CommandLineTool.run(
            arguments, stderrPath: dir + "/stderr-\(UUID().uuidString.prefix(6))", file: file, line: line)
    }

    func start(_ arguments: [String]) throws -> CommandLineTool.Child {
        try CommandLineTool.Child(arguments, stderrPath: dir + "/child-\(UUID().uuidString.prefix(6))")
    }

    /// The exported summaries without their derivation times (which differ between runs).
    func exported(_ db: String) throws -> [String] {
        let out = dir + "/export-\(UUID().uuidString.prefix(6)).jsonl"
        XCTAssertEqual(try rederive(["export", "--db", db, "--out", out, "--quiet"]), 0)
        return try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map {
            String($0).replacingOccurrences(of: #""derivedAt":"[^"]*","#, with: "", options: .regularExpression)
        }
    }

    /// A generated corpus of `records` small records (made once per test process: only read).
    func corpus(_ records: Int) throws -> String {
        try GeneratedCorpus.path(records: records, seed: 3, coreModelBytes: 200)
    }

    func testImportStatusAndSchemaHistory() throws {
        XCTAssertEqual(try rederive(["import", exports, "--db", url, "--quiet"]), 0)
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM record", url: url), ["32"])
        XCTAssertEqual(
            try cluster.sql("SELECT name FROM schema_migration ORDER BY name", url: url),
            [
                "pg-v1-initial", "pg-v2-text-with-nul", "pg-v3-failure-ack", "pg-v4-faulted-files",
                "pg-v5-summary-fillfactor", "pg-v6-run-batch-and-control", "pg-v7-batch-health",
                "pg-v8-statistics-targets",
            ] + SummaryColumn.additions.map(\.migrationName))
        // Importing the same exports again changes nothing.
        XCTAssertEqual(try rederive(["import", exports, "--db", url, "--quiet"]), 0)
        XCTAssertEqual(try cluster.sql("SELECT count(*), sum(records_done) FROM run", url: url), ["2|32"])
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM summary_history", url: url), ["0"])
    }

    func testAStoreBehindOnlyByTheSummaryFillfactorIsReadAsItIsThenMigrated() throws {
        let fill = "SELECT coalesce(reloptions::text, 'none') FROM pg_class WHERE oid = 'summary'::regclass"
        let applied = "SELECT count(*) FROM schema_migration WHERE name = 'pg-v5-summary-fillfactor'"
        XCTAssertEqual(try rederive(["import", exports, "--db", url, "--quiet"]), 0)
        XCTAssertEqual(try cluster.sql(fill, url: url), ["{fillfactor=50}"])
        // What a store written before pg-v5-summary-fillfactor looks like.
        try cluster.sql("ALTER TABLE summary RESET (fillfactor)", url: url)
        try cluster.sql("DELETE FROM schema_migration WHERE name = 'pg-v5-summary-fillfactor'", url: url)
        XCTAssertEqual(try rederive(["status", "--db", url]), 0, "a storage-only migration does not block a reader")
        XCTAssertEqual(try cluster.sql(applied, url: url), ["0"], "a read-only command migrates nothing")
        XCTAssertEqual(try cluster.sql(fill, url: url), ["none"])
        // Behind by another migration as well: still refused, with what to run.
        try cluster.sql("DELETE FROM schema_migration WHERE name = 'pg-v4-faulted-files'", url: url)
        XCTAssertEqual(try rederive(["status", "--db", url]), 2)
        try cluster.sql("INSERT INTO schema_migration VALUES ('pg-v4-faulted-files', now())", url: url)
        XCTAssertEqual(try rederive(["derive", "--db", url, "--all", "--quiet"]), 0)
        XCTAssertEqual(try cluster.sql(applied, url: url), ["1"])
        XCTAssertEqual(try cluster.sql(fill, url: url), ["{fillfactor=50}"])
    }

    func testASingleProcessDoesNotWaitOnItsOwnRangesAtTheEnd() throws {
        XCTAssertEqual(try rederive(["import", exports, "--db", url, "--quiet"]), 0)
        let log = dir + "/single-process.log"
        XCTAssertEqual(
            try CommandLineTool.run(
                ["derive", "--db", url, "--all", "--rewrite", "--batch-size", "4"], stderrPath: log), 0)
        let text = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertTrue(text.contains("claiming ranges"), text)
        // It used to say it waited for "ranges other processes hold" (its own, being committed)
        // and sleep up to half a second before asking again.
        XCTAssertFalse(text.contains("waiting for"), text)
    }

    func testPasswordInTheURLIsNotKeptInTheRunHistory() throws {
        // Trust authentication accepts any password: the point is what the store keeps.
        let withPassword = url.replacingOccurrences(of: "postgres@", with: "postgres:s3cret-pw@")
        XCTAssertEqual(try rederive(["import", exports, "--db", withPassword, "--quiet"]), 0)
        XCTAssertEqual(try rederive(["derive", "--db", withPassword, "--all", "--quiet"]), 0)
        let arguments = try cluster.sql("SELECT arguments FROM run ORDER BY id", url: url)
        XCTAssertEqual(arguments.count, 2)
        XCTAssertFalse(arguments.joined().contains("s3cret-pw"), "\(arguments)")
        XCTAssertTrue(arguments.allSatisfy { $0.contains("postgres@127.0.0.1") }, "\(arguments)")
    }

    func testPipelineFileWithAServerStoreRunsAsOnSQLite() throws {
        let fixtures = RoomFixtures.repoRoot.appendingPathComponent("Fixtures").path
        // The same pipeline on both engines; `store:` a URL is taken as it is, not as a path.
        func pipeline(store: String, name: String) throws -> String {
            let path = dir + "/\(name).yml"
            try """
            version: 1
            name: \(name)
            store: \(store)
            stages:
              - import:
                  paths: [\(fixtures)]
              - derive: {}
              - export:
                  out: \(name)-summaries.jsonl
            """.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        XCTAssertEqual(try rederive(["run", try pipeline(store: url, name: "pg"), "--quiet"]), 3)
        XCTAssertEqual(try rederive(["run", try pipeline(store: dir + "/rooms.sqlite", name: "lite"), "--quiet"]), 3)
        func lines(_ name: String) throws -> [String] {
            try String(contentsOfFile: dir + "/\(name)-summaries.jsonl", encoding: .utf8).split(separator: "\n").map {
                String($0).replacingOccurrences(of: #""derivedAt":"[^"]*","#, with: "", options: .regularExpression)
            }
        }
        XCTAssertGreaterThan(try lines("pg").count, 30)
        XCTAssertEqual(try lines("pg"), try lines("lite"))
        XCTAssertEqual(
            try cluster.sql("SELECT command, status FROM run ORDER BY id", url: url),
            ["import|completed", "derive|completed", "export|completed"])
    }

    func testBackfillGuardsWorkOnAServerStore() throws {
        XCTAssertEqual(try rederive(["import", exports, "--db", url, "--quiet"]), 0)
        try cluster.sql("UPDATE summary SET summary_version = 0 WHERE record_seq % 2 = 0", url: url)
        let stale = Int(try cluster.sql("SELECT count(*) FROM summary WHERE summary_version = 0", url: url)[0]) ?? 0
        XCTAssertGreaterThan(stale, 5)
        func summaries() throws -> [String] {
            try cluster.sql("SELECT record_seq, summary_version, derived_at FROM summary ORDER BY 1", url: url)
        }
        let before = try summaries()
        // max-changes refuses before writing anything.
        XCTAssertEqual(try rederive(["derive", "--db", url, "--max-changes", "1", "--quiet"]), 7)
        XCTAssertEqual(try summaries(), before)
        // A preview and its plan write nothing; the plan applies exactly; a stale plan is refused.
        let plan = dir + "/plan.json"
        XCTAssertEqual(
            try rederive([
                "derive", "--db", url, "--dry-run", "--plan", plan, "--preview-out", dir + "/preview", "--quiet",
            ]), 0)
        XCTAssertEqual(try summaries(), before)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/preview/preview.html"))
        try cluster.sql("UPDATE summary SET summary_version = 0 WHERE record_seq = 1", url: url)
        XCTAssertEqual(try rederive(["derive", "--db", url, "--apply-plan", plan, "--quiet"]), 7, "store changed")
        try cluster.sql(
            "UPDATE summary SET summary_version = \(SummaryDeriver.currentVersion) WHERE record_seq = 1", url: url)
        XCTAssertEqual(try rederive(["derive", "--db", url, "--apply-plan", plan, "--quiet"]), 0)
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM summary WHERE summary_version = 0", url: url), ["0"])
        XCTAssertEqual(
            try cluster.sql("SELECT count(*) FROM summary_history", url: url), ["\(stale)"], "every overwrite kept")
    }

    func testNewerSchemaIsRefusedUntouched() throws {
        XCTAssertEqual(try rederive(["import", exports, "--db", url, "--quiet"]), 0)
        try cluster.sql("INSERT INTO schema_migration VALUES ('pg-v99-future', now())", url: url)
        XCTAssertEqual(try rederive(["derive", "--db", url, "--all", "--quiet"]), 2)
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM run", url: url), ["1"])
    }

    /// A worker of `derive --processes N` that starts after the others finished their run
    /// joins it and does nothing (review #24: it started a second full `--all --rewrite` run,
    /// which also made the range count of the parity test below depend on timing).
    func testAWorkerStartingAfterItsGroupFinishedDoesNothing() throws {
        XCTAssertEqual(try rederive(["import", exports, "--db", url, "--quiet"]), 0)
        setenv(DeriveConfiguration.processGroupVariable, "group-test-1", 1)
        defer { unsetenv(DeriveConfiguration.processGroupVariable) }
        let derive = ["derive", "--db", url, "--all", "--rewrite", "--batch-size", "5", "--quiet"]
        XCTAssertEqual(try rederive(derive), 0)
        let runs = try cluster.sql("SELECT count(*) FROM run", url: url)
        let history = try cluster.sql("SELECT count(*) FROM summary_history", url: url)
        let ranges = try cluster.sql("SELECT count(*) FROM derive_range", url: url)
        XCTAssertEqual(try rederive(derive), 0, "the late worker")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM run", url: url), runs, "no second run")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM summary_history", url: url), history, "nothing rewritten")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM derive_range", url: url), ranges)
        // Another start (another group, or none) is a new run as before.
        setenv(DeriveConfiguration.processGroupVariable, "group-test-2", 1)
        XCTAssertEqual(try rederive(derive), 0)
        XCTAssertNotEqual(try cluster.sql("SELECT count(*) FROM run", url: url), runs)
    }

    /// The fixtures imported into the test's database, opened in this process.
    private func importedStore() throws -> PostgresStore {
        XCTAssertEqual(try rederive(["import", exports, "--db", url, "--quiet"]), 0)
        return try PostgresStore(url: url)
    }

    /// `derive --all`, quietly, as a library caller configures it.
    private static let deriveAll = DeriveConfiguration(
        selection: DeriveSelection(all: true), settings: RunSettings(arguments: "derive", showProgress: false))

    /// The late worker's check (`DeriveJob.run`) and its run start are two steps: when its
    /// group's run completes between them, the start itself, under the key's lock, begins
    /// nothing (it used to open an empty second run). The job is started past the check here.
    func testAWorkerWhoseGroupFinishesAfterItsCheckBeginsNoRun() throws {
        let store = try importedStore()
        defer { store.close() }
        var config = Self.deriveAll
        config.processGroup = "group-test-3"
        let first = try DeriveJob.run(config, store: store)
        XCTAssertEqual(first.statistics.recordsRead, 32)
        let runs = try cluster.sql("SELECT count(*) FROM run", url: url)
        let late = try BatchRunner.run(DeriveJob(config, store: store, mode: .apply), settings: config.settings)
        XCTAssertEqual(late.runID, first.runID)
        XCTAssertEqual(late.exitStatus, .ok)
        XCTAssertEqual(late.statistics.recordsRead, 0)
        XCTAssertEqual(late.note, "run \(first.runID) was finished by the other worker processes; nothing left to do")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM run", url: url), runs, "no second run")
    }

    /// The same for a plan's apply: a host that starts joining the plan's run after the
    /// others completed it begins nothing and says which run applied the plan.
    func testAPlanApplyStartingAfterThePlansRunCompletedBeginsNoRun() throws {
        let store = try importedStore()
        defer { store.close() }
        var config = Self.deriveAll
        config.planRunKey = "plan:test-race"
        let applied = try BatchRunner.run(DeriveJob(config, store: store, mode: .apply), settings: config.settings)
        XCTAssertEqual(applied.statistics.recordsRead, 32)
        let runs = try cluster.sql("SELECT count(*) FROM run", url: url)
        let late = try BatchRunner.run(DeriveJob(config, store: store, mode: .apply), settings: config.settings)
        XCTAssertEqual(late.runID, applied.runID)
        XCTAssertEqual(late.statistics.recordsRead, 0)
        XCTAssertTrue(
            try XCTUnwrap(late.note).hasPrefix("this plan was already applied by run \(applied.runID)"),
            late.note ?? "")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM run", url: url), runs, "no second run")
    }

    func testImportAndDeriveMatchSQLite() throws {
        let sqlite = dir + "/rooms.sqlite"
        XCTAssertEqual(try rederive(["import", exports, "--db", sqlite, "--quiet"]), 0)
        XCTAssertEqual(try rederive(["import", exports, "--db", url, "--quiet"]), 0)
        XCTAssertEqual(try exported(url), try exported(sqlite))
        XCTAssertEqual(
            try rederive(["derive", "--db", url, "--all", "--rewrite", "--processes", "2", "--batch-size", "5"]), 0)
        XCTAssertEqual(try rederive(["derive", "--db", sqlite, "--all", "--rewrite", "--quiet"]), 0)
        XCTAssertEqual(try exported(url), try exported(sqlite))
        XCTAssertEqual(
            try cluster.sql("SELECT count(*), min(state), max(state), sum(records_read) FROM derive_range", url: url),
            ["7|done|done|32"])
    }
}
