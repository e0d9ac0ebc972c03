import Foundation
import RederivePostgres
import XCTest
@testable import RederiveCore

/// The PostgreSQL engine against a real server (`PostgresCluster`), through the command
/// line: the same store concepts and jobs as SQLite, and the derive split across worker
/// processes that claim ranges in the database.
final class PostgresStoreTests: XCTestCase {
    private var cluster: PostgresCluster!
    private var url = ""
    private var dir = ""

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

    private var exports: String { RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path }

    @discardableResult
    private func rederive(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Int32 {
        try CommandLineTool.run(
            arguments, stderrPath: dir + "/stderr-\(UUID().uuidString.prefix(6))", file: file, line: line)
    }

    private func start(_ arguments: [String]) throws -> CommandLineTool.Child {
        try CommandLineTool.Child(arguments, stderrPath: dir + "/child-\(UUID().uuidString.prefix(6))")
    }

    /// The exported summaries without their derivation times (which differ between runs).
    private func exported(_ db: String) throws -> [String] {
        let out = dir + "/export-\(UUID().uuidString.prefix(6)).jsonl"
        XCTAssertEqual(try rederive(["export", "--db", db, "--out", out, "--quiet"]), 0)
        return try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map {
            String($0).replacingOccurrences(of: #""derivedAt":"[^"]*","#, with: "", options: .regularExpression)
        }
    }

    /// A generated corpus of `records` small records (made once per test process: only read).
    private func corpus(_ records: Int) throws -> String {
        try GeneratedCorpus.path(records: records, seed: 3, coreModelBytes: 200)
    }

    func testImportStatusAndSchemaHistory() throws {
        XCTAssertEqual(try rederive(["import", exports, "--db", url, "--quiet"]), 0)
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM record", url: url), ["32"])
        XCTAssertEqual(
            try cluster.sql("SELECT name FROM schema_migration ORDER BY name", url: url),
            [
                "pg-v1-initial", "pg-v2-text-with-nul", "pg-v3-failure-ack", "pg-v4-faulted-files",
                "pg-v5-summary-fillfactor", "pg-v6-run-batch-and-control",
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

    /// Every record derived exactly once, whichever of the workers got its range.
    private func checkExactlyOnce(processes: Int) throws {
        XCTAssertEqual(try rederive(["import", try corpus(400), "--db", url, "--quiet"]), 0)
        try cluster.slowSummaryWrites(url: url)
        XCTAssertEqual(
            try rederive([
                "derive", "--db", url, "--all", "--rewrite", "--processes", "\(processes)", "--batch-size", "10",
                "--workers", "1", "--quiet",
            ]), 0)
        let total = try cluster.sql("SELECT count(*) FROM record", url: url)
        XCTAssertEqual(try cluster.sql("SELECT sum(records_read) FROM derive_range", url: url), total)
        XCTAssertEqual(
            try cluster.sql("SELECT count(*) FROM derive_range WHERE state <> 'done' OR attempt <> 1", url: url), ["0"])
        // Ranges are disjoint and cover every record.
        XCTAssertEqual(
            try cluster.sql(
                "SELECT count(*) FROM record r WHERE (SELECT count(*) FROM derive_range d "
                    + "WHERE r.seq BETWEEN d.seq_from AND d.seq_to) <> 1", url: url), ["0"])
        let run = try cluster.sql("SELECT max(run_id) FROM derive_range", url: url)[0]
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM summary WHERE run_id <> \(run)", url: url), ["0"])
        XCTAssertEqual(
            try cluster.sql("SELECT status, records_read FROM run WHERE id = \(run)", url: url),
            ["completed|" + total[0]])
        let workers = try cluster.sql("SELECT count(DISTINCT claimed_by) FROM derive_range", url: url)[0]
        XCTAssertGreaterThan(Int(workers) ?? 0, 1, "more than one worker claimed ranges")
    }

    func testTwoWorkerProcessesDeriveEveryRecordOnce() throws { try checkExactlyOnce(processes: 2) }

    func testFourWorkerProcessesDeriveEveryRecordOnce() throws { try checkExactlyOnce(processes: 4) }

    /// Waits until `child` holds a claimed range; returns its id. A child that ended first
    /// fails at once (not after the deadline): it finished every range before one was seen.
    private func claimedRange(by child: CommandLineTool.Child) throws -> String {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && child.isRunning {
            let rows = try cluster.sql(
                "SELECT id FROM derive_range WHERE state = 'claimed' AND claimed_by LIKE '%:\(child.pid)' LIMIT 1",
                url: url)
            if let id = rows.first { return id }
            usleep(2_000)
        }
        throw PostgresCluster.Failure(
            description: "the worker never claimed a range"
                + (child.isRunning ? "" : " before it ended: \(child.stderr)"))
    }

    /// Stops `child` (SIGSTOP) while it holds a claimed range; returns that range's id. The
    /// range is read after the stop has settled (statements already sent have landed): a range
    /// seen claimed just before the stop may have been committed in between, so the child is
    /// let go and stopped again until it is caught holding one.
    /// With `atLeast` 2, it is caught holding a range read ahead besides the one in hand.
    private func stopHoldingARange(_ child: CommandLineTool.Child, atLeast: Int = 1) throws -> String {
        for _ in 0..<100 {
            _ = try claimedRange(by: child)
            child.signal(SIGSTOP)
            usleep(200_000)
            let rows = try cluster.sql(
                "SELECT id FROM derive_range WHERE state = 'claimed' AND claimed_by LIKE '%:\(child.pid)' ORDER BY id",
                url: url)
            if rows.count >= atLeast, let id = rows.first { return id }
            child.signal(SIGCONT)
        }
        throw PostgresCluster.Failure(description: "the worker was never caught holding a range")
    }

    func testKilledWorkersRangeIsFinishedByAnotherWithTheSameResult() throws {
        let sqlite = dir + "/rooms.sqlite"
        let input = try corpus(300)
        XCTAssertEqual(try rederive(["import", input, "--db", sqlite, "--quiet"]), 0)
        XCTAssertEqual(try rederive(["import", input, "--db", url, "--quiet"]), 0)
        setenv("REDERIVE_LEASE_SECONDS", "1", 1)
        let arguments = ["derive", "--db", url, "--all", "--rewrite", "--batch-size", "20", "--quiet"]
        let first = try start(arguments)
        let range = try stopHoldingARange(first)
        // status shows the run's ranges and who holds the claimed one.
        let scratch = try TemporaryDirectory()
        let shown = try CommandLineTool.invoke(["status", "--db", url, "--json"], scratch: scratch)
        XCTAssertEqual(shown.status, 0, shown.stderr)
        let status = try XCTUnwrap(JSONSerialization.jsonObject(with: shown.stdoutData) as? [String: Any])
        let text = try CommandLineTool.invoke(["status", "--db", url], scratch: scratch)
        XCTAssertTrue(text.stdout.contains("claimed by ") && text.stdout.contains(":\(first.pid)"), text.stdout)
        let ranges = try XCTUnwrap(status["deriveRanges"] as? [String: Any], "\(status)")
        XCTAssertGreaterThanOrEqual(ranges["claimed"] as? Int ?? 0, 1, "\(ranges)")
        let holders = try XCTUnwrap(ranges["claimedBy"] as? [String: Int], "\(ranges)")
        XCTAssertTrue(holders.keys.contains { $0.hasSuffix(":\(first.pid)") }, "\(holders)")
        first.signal(SIGKILL)
        first.wait()
        XCTAssertEqual(try rederive(arguments), 0)
        XCTAssertEqual(
            try cluster.sql("SELECT state, attempt FROM derive_range WHERE id = \(range)", url: url), ["done|2"])
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM derive_range WHERE state <> 'done'", url: url), ["0"])
        XCTAssertEqual(try rederive(["derive", "--db", sqlite, "--all", "--rewrite", "--quiet"]), 0)
        XCTAssertEqual(try exported(url), try exported(sqlite))
    }

    func testKilledImportIsFinishedByARerunWithTheSameResult() throws {
        let input = try corpus(1500)
        let sqlite = dir + "/rooms.sqlite"
        XCTAssertEqual(try rederive(["import", input, "--db", sqlite, "--quiet"]), 0)
        let importer = try start(["import", input, "--db", url, "--batch-size", "20", "--quiet"])
        // Killed once some batches are committed, and well before the end.
        let deadline = Date().addingTimeInterval(120)
        var committed = 0
        while importer.isRunning && Date() < deadline && committed < 100 {
            committed = Int((try? cluster.sql("SELECT count(*) FROM record", url: url).first) ?? nil ?? "0") ?? 0
            usleep(2_000)
        }
        importer.signal(SIGKILL)
        importer.wait()
        let kept = Int(try cluster.sql("SELECT count(*) FROM record", url: url)[0]) ?? 0
        XCTAssertGreaterThanOrEqual(kept, 100, "killed after some batches were committed")
        XCTAssertLessThan(kept, 1500, "killed mid-import")
        XCTAssertEqual(kept % 20, 0, "only whole batches were committed")
        XCTAssertEqual(try rederive(["import", input, "--db", url, "--quiet"]), 0)
        XCTAssertEqual(try exported(url), try exported(sqlite))
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM record", url: url), ["1500"])
    }

    func testStoppedWorkerGivesItsRangesBackAndARerunDoesNotWaitForLeases() throws {
        let sqlite = dir + "/rooms.sqlite"
        let input = try corpus(600)
        XCTAssertEqual(try rederive(["import", input, "--db", sqlite, "--quiet"]), 0)
        XCTAssertEqual(try rederive(["import", input, "--db", url, "--quiet"]), 0)
        // The default lease (60 s): a rerun that had to wait for one would take a minute.
        let arguments = ["derive", "--db", url, "--all", "--rewrite", "--batch-size", "10", "--quiet"]
        let worker = try start(arguments)
        // Caught holding a range read ahead: the one in hand may be finished on SIGTERM.
        _ = try stopHoldingARange(worker, atLeast: 2)
        worker.signal(SIGTERM)
        worker.signal(SIGCONT)
        let (status, _) = worker.wait()
        XCTAssertEqual(status, 143, worker.stderr)
        let ranges = try cluster.sql("SELECT id, state, attempt, released FROM derive_range", url: url)
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM derive_range WHERE state = 'claimed'", url: url), ["0"])
        XCTAssertEqual(
            try cluster.sql("SELECT count(*) > 0 FROM derive_range WHERE released > 0 AND state = 'open'", url: url),
            ["t"], worker.stderr + ranges.joined(separator: " "))
        let started = Date()
        XCTAssertEqual(try rederive(arguments), 0)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "the rerun took the ranges at once")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM derive_range WHERE state <> 'done'", url: url), ["0"])
        XCTAssertEqual(try rederive(["derive", "--db", sqlite, "--all", "--rewrite", "--quiet"]), 0)
        XCTAssertEqual(try exported(url), try exported(sqlite))
    }

    func testWorkerPausedPastItsLeaseCannotCommitItsStaleRange() throws {
        XCTAssertEqual(try rederive(["import", try corpus(200), "--db", url, "--quiet"]), 0)
        setenv("REDERIVE_LEASE_SECONDS", "1", 1)
        let arguments = ["derive", "--db", url, "--all", "--rewrite", "--batch-size", "20"]
        let stalled = try start(arguments)
        let range = try stopHoldingARange(stalled)
        XCTAssertEqual(try rederive(arguments + ["--quiet"]), 0)
        let before = try cluster.sql("SELECT claimed_by, attempt FROM derive_range WHERE id = \(range)", url: url)
        stalled.signal(SIGCONT)
        // Stopped before its commit, it finds the range taken; stopped inside its commit, the
        // server ended that transaction after a lease of idling (or, stopped with the commit
        // half sent, the other worker ended it: PostgresStalledHolderTests), and the connection
        // with it: the worker makes a new one, finds the range another's, drops its results and
        // carries on.
        let (status, _) = stalled.wait()
        XCTAssertEqual(status, 0, stalled.stderr)
        XCTAssertTrue(stalled.stderr.contains("was taken over by another process"), stalled.stderr)
        // Its tally counts what it committed, not the dropped range too (issue 36 #12).
        func number(after pattern: String) -> Int? {
            guard let match = stalled.stderr.range(of: pattern, options: .regularExpression) else { return nil }
            return Int(stalled.stderr[match].split(separator: " ").compactMap { Int($0) }.last ?? -1)
        }
        let committed = try XCTUnwrap(number(after: #"range\(s\) of run [0-9]+, [0-9]+"#), stalled.stderr)
        let read = try XCTUnwrap(number(after: #"derive \(run [0-9]+[^)]*\): [0-9]+"#), stalled.stderr)
        XCTAssertEqual(read, committed, stalled.stderr)
        XCTAssertEqual(
            try cluster.sql("SELECT claimed_by, attempt FROM derive_range WHERE id = \(range)", url: url), before)
        XCTAssertEqual(try cluster.sql("SELECT attempt FROM derive_range WHERE id = \(range)", url: url), ["2"])
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM derive_range WHERE state <> 'done'", url: url), ["0"])
    }

    func testPoisonRangeStopsAfterItsAttempts() throws {
        XCTAssertEqual(try rederive(["import", exports, "--db", url, "--quiet"]), 0)
        try cluster.sql(
            """
            CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF NEW.record_seq = 7 THEN RAISE EXCEPTION 'poisoned record'; END IF; RETURN NEW; END $$;
            CREATE TRIGGER poison BEFORE INSERT OR UPDATE ON summary FOR EACH ROW EXECUTE FUNCTION poison();
            """, url: url)
        setenv("REDERIVE_MAX_ATTEMPTS", "3", 1)
        XCTAssertEqual(try rederive(["derive", "--db", url, "--all", "--rewrite", "--batch-size", "5", "--quiet"]), 3)
        XCTAssertEqual(
            try cluster.sql(
                "SELECT seq_from <= 7 AND seq_to >= 7, attempt FROM derive_range WHERE state = 'failed'", url: url),
            ["t|3"])
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM derive_range WHERE state = 'done'", url: url), ["6"])
        XCTAssertEqual(try cluster.sql("SELECT status FROM run ORDER BY id DESC LIMIT 1", url: url), ["completed"])
    }

    func testServerLostMidRunIsAClearErrorAndARerunCompletes() throws {
        // Enough ranges that the worker is still at it when seen claiming (libpq derives 300 in a blink).
        XCTAssertEqual(try rederive(["import", try corpus(1500), "--db", url, "--quiet"]), 0)
        let arguments = ["derive", "--db", url, "--all", "--rewrite", "--batch-size", "10", "--quiet"]
        let worker = try start(arguments)
        _ = try claimedRange(by: worker)
        worker.signal(SIGSTOP)
        try cluster.pause()
        worker.signal(SIGCONT)
        let (status, _) = worker.wait()
        XCTAssertEqual(status, 2, worker.stderr)
        // One line that says what and what to do, not libpq's multi-line dump.
        let lines = worker.stderr.split(separator: "\n").filter { $0.contains("error") }
        XCTAssertEqual(lines.count, 1, worker.stderr)
        XCTAssertTrue(worker.stderr.contains("cannot"), worker.stderr)
        // What to do: either hint (the session's own, or ConnectionFailure's for a known cause).
        XCTAssertTrue(worker.stderr.contains("command again"), worker.stderr)
        try cluster.resume()
        setenv("REDERIVE_LEASE_SECONDS", "1", 1)
        try cluster.sql("UPDATE derive_range SET lease_until = now() WHERE state = 'claimed'", url: url)
        XCTAssertEqual(try rederive(arguments), 0)
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM derive_range WHERE state <> 'done'", url: url), ["0"])
        let total = try cluster.sql("SELECT count(*) FROM record", url: url)
        XCTAssertEqual(try cluster.sql("SELECT sum(records_read) FROM derive_range", url: url), total)
    }
}
