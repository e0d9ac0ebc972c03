import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Issue 34 on PostgreSQL with a real streaming standby: while its replay is paused, a running
/// derive's worker waits, with its claims given back, and says why (the signal and both
/// values); it carries on once replay resumes, to the store an unthrottled run leaves. Observe
/// mode writes the same reason and changes nothing. A role without `pg_monitor` follows the
/// "cannot measure" policy: `continue` goes on, `wait:SECONDS` waits as on red after that long.
final class PostgresThrottleTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var cluster: PostgresCluster!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        cluster = try PostgresCluster.shared()
        // A red wait ends after 1 s of green, not the default 30 s (the workers' stderr shows it).
        setenv(EnvironmentSettings.greenHoldSeconds, "1", 1)
    }

    override func tearDown() {
        unsetenv(EnvironmentSettings.greenHoldSeconds)
        dir = nil
    }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    private static let derive = [
        "derive", "--all", "--rewrite", "--batch-size", "25", "--workers", "1", "--max-rate", "250",
        "--max-standby-lag", "4MB",
    ]
    /// The unthrottled run a throttled one must end as (at full speed: its rate is no part of that).
    private static let reference = [
        "derive", "--all", "--rewrite", "--batch-size", "25", "--workers", "1", "--throttle", "off", "-q",
    ]

    /// Makes the standby fall more than 8 MB behind (its replay paused).
    private func makeLag(_ standby: PostgresCluster.Standby, url: String) throws {
        try standby.pauseReplay()
        try cluster.sql("CREATE TABLE filler AS SELECT repeat('x', 1000) AS t FROM generate_series(1, 12000)", url: url)
        let deadline = Date().addingTimeInterval(30)
        while try cluster.replayLagBytes() < 8_000_000, Date() < deadline { usleep(100_000) }
        XCTAssertGreaterThan(try cluster.replayLagBytes(), 8_000_000)
    }

    /// Within a batch and a second of the next health read, `worker` waits with nothing claimed
    /// and commits nothing more, part way through its run.
    private func assertWaiting(
        _ worker: CommandLineTool.Child, url: String, done: String, while cause: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        Thread.sleep(forTimeInterval: 2.5)
        XCTAssertEqual(
            try cluster.count("SELECT count(*) FROM derive_range WHERE state = 'claimed'", url), 0, "given back",
            file: file, line: line)
        let held = try cluster.count(done, url)
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(
            try cluster.count(done, url), held, "nothing committed while \(cause)", file: file, line: line)
        XCTAssertLessThan(held, 40, "the run waited part way", file: file, line: line)
        XCTAssertTrue(worker.isRunning, file: file, line: line)
    }

    func testAWorkerWaitsWhileTheStandbyLagsAndCarriesOnWhenReplayResumes() throws {
        let reference = try cluster.importedDatabase(records: 1000, seed: 34, scratch: dir)
        XCTAssertEqual(try rederive(Self.reference + ["--db", reference]).status, 0)
        let url = try cluster.importedDatabase(records: 1000, seed: 34, scratch: dir)
        let standby = try cluster.standby()
        defer { standby.stop() }
        let worker = try CommandLineTool.Child(Self.derive + ["--db", url], stderrPath: dir.file("worker.err"))
        let deadline = Date().addingTimeInterval(60)
        let done = "SELECT count(*) FROM derive_range WHERE state = 'done'"
        while try cluster.count(done, url) < 2, Date() < deadline { usleep(20_000) }
        try makeLag(standby, url: url)
        try assertWaiting(worker, url: url, done: done, while: "red")

        try standby.resumeReplay()
        let (exit, _) = worker.wait()
        XCTAssertEqual(exit, 0, worker.stderr)
        XCTAssertTrue(
            worker.stderr.contains("health red, waiting with claims given back: standby replay lag"), worker.stderr)
        XCTAssertTrue(worker.stderr.contains(">= red 4.0 MB"), "the signal and both values: \(worker.stderr)")
        XCTAssertTrue(worker.stderr.contains("green for 0 of 1 s before going on"), worker.stderr)
        XCTAssertTrue(worker.stderr.contains("health green: full speed again"), worker.stderr)
        XCTAssertEqual(try cluster.count("SELECT count(*) FROM derive_range WHERE state <> 'done'", url), 0)
        XCTAssertEqual(
            try cluster.summariesDigest(url), try cluster.summariesDigest(reference), "throttled vs unthrottled")
        let run = try cluster.sql("SELECT max(run_id) FROM derive_range", url: url)[0]
        let waits = "SELECT count(*) FROM run_batch WHERE run_id = \(run) AND wait_reason LIKE 'health: standby%'"
        XCTAssertGreaterThanOrEqual(try cluster.count(waits, url), 1, "the wait is kept with the batch")
    }

    /// A session waiting for a lock on one of our tables (`raw_core_model`, which a derive never
    /// touches, held by another: only the throttle can make the derive wait) makes a running
    /// worker wait with its claims given back and say why; it carries on once the lock is free,
    /// to the store an unthrottled run leaves.
    func testALockWaitOnOurTableMakesAWorkerWaitUntilItIsGone() throws {
        let reference = try cluster.importedDatabase(records: 1000, seed: 35, scratch: dir)
        XCTAssertEqual(try rederive(Self.reference + ["--db", reference]).status, 0)
        let url = try cluster.importedDatabase(records: 1000, seed: 35, scratch: dir)
        let database = String(url.split(separator: "/").last!)
        let worker = try CommandLineTool.Child(
            Self.derive + ["--db", url, "--health-limit", "lock_waits_on_our_tables=1,1"],
            stderrPath: dir.file("worker.err"))
        let done = "SELECT count(*) FROM derive_range WHERE state = 'done'"
        let deadline = Date().addingTimeInterval(60)
        while try cluster.count(done, url) < 2, Date() < deadline { usleep(20_000) }
        let holder = try cluster.background(
            database: database, "BEGIN; LOCK TABLE raw_core_model IN ROW EXCLUSIVE MODE; SELECT pg_sleep(120); COMMIT;")
        let release = {
            _ = try? self.cluster.sql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(120)%' "
                    + "AND pid <> pg_backend_pid()", database: database)
        }
        defer {
            release()
            holder.waitUntilExit()
        }
        let granted = "SELECT count(*) FROM pg_locks WHERE granted AND relation = 'raw_core_model'::regclass"
        while try cluster.count(granted, url) < 1, Date() < deadline { usleep(20_000) }
        let waiter = try cluster.background(
            database: database, "BEGIN; LOCK TABLE raw_core_model IN SHARE MODE; COMMIT;")
        let waiting = "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'raw_core_model'::regclass"
        while try cluster.count(waiting, url) < 1, Date() < deadline { usleep(20_000) }
        try assertWaiting(worker, url: url, done: done, while: "a session waits on our table")

        release()
        waiter.waitUntilExit()
        let (exit, _) = worker.wait()
        XCTAssertEqual(exit, 0, worker.stderr)
        XCTAssertTrue(
            worker.stderr.contains("health red, waiting with claims given back: lock waits on our tables"),
            worker.stderr)
        XCTAssertTrue(worker.stderr.contains("green for 0 of 1 s before going on"), worker.stderr)
        XCTAssertTrue(worker.stderr.contains("health green: full speed again"), worker.stderr)
        XCTAssertEqual(try cluster.count("SELECT count(*) FROM derive_range WHERE state <> 'done'", url), 0)
        XCTAssertEqual(
            try cluster.summariesDigest(url), try cluster.summariesDigest(reference), "throttled vs unthrottled")
    }

    /// A writer that would pass its red limit between two readings: with replay paused the lag is
    /// the derive's own WAL, held at 600 records a second by `--max-rate` (about 1.5 MB a second
    /// whatever the build's own speed or the machine's load: a debug build now derives several
    /// times as fast, and its half-speed first second passed the red; at 1,000 a second a loaded
    /// suite run still passed it once), and under a red of 4 MB the worker starts at half
    /// speed, then waits once the lag's projection to the next reading passes red, before any
    /// reading it keeps with a batch reaches red (asserted on those readings, not on time); it
    /// finishes once replay resumes. A red below about 0.6 s of writes is passed by the half-speed
    /// first second: the rule in docs/postgresql.md.
    func testAFastWriterWaitsBeforeItsLagPassesRed() throws {
        let url = try cluster.importedDatabase(records: 6000, seed: 36, scratch: dir)
        try cluster.sql("VACUUM", url: url)  // no autovacuum of the import's rows adding WAL meanwhile
        let standby = try cluster.standby()
        defer { standby.stop() }
        try standby.pauseReplay()
        defer { try? standby.resumeReplay() }
        let worker = try CommandLineTool.Child(
            [
                "derive", "--all", "--rewrite", "--batch-size", "100", "--workers", "1", "--max-standby-lag", "4MB",
                "--max-rate", "600", "--db", url,
            ], stderrPath: dir.file("worker.err"))
        let deadline = Date().addingTimeInterval(120)
        while !worker.stderr.contains("health red"), worker.isRunning, Date() < deadline { usleep(50_000) }
        try standby.resumeReplay()
        let (exit, _) = worker.wait()
        XCTAssertEqual(exit, 0, worker.stderr)
        XCTAssertTrue(worker.stderr.contains("its growth not known yet: half speed"), worker.stderr)
        XCTAssertTrue(
            worker.stderr.contains("health red, waiting with claims given back: standby replay lag")
                && worker.stderr.contains("projected"), worker.stderr)
        let run = try cluster.sql("SELECT max(run_id) FROM run_batch", url: url)[0]
        let rows = try cluster.sql(
            "SELECT claim_health || E'\\t' || commit_health FROM run_batch WHERE run_id = \(run) AND records > 0",
            url: url)
        XCTAssertGreaterThan(rows.count, 5)
        for row in rows {
            for text in row.components(separatedBy: "\t") {
                let lag = try XCTUnwrap(BatchHealth(json: text)?["standby_lag_bytes"], row)
                XCTAssertLessThan(lag, 4_000_000, "a reading at or past red: \(row)")
            }
        }
    }

    func testObserveModeSaysWhatItWouldDoAndChangesNothing() throws {
        let url = try cluster.importedDatabase(records: 400, seed: 34, scratch: dir)
        let standby = try cluster.standby()
        defer { standby.stop() }
        try makeLag(standby, url: url)
        defer { try? standby.resumeReplay() }
        let r = try rederive(Self.derive + ["--db", url, "--throttle", "observe"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("would wait: standby replay lag"), r.stderr)
        XCTAssertFalse(r.stderr.contains("health red, waiting"), r.stderr)
        XCTAssertEqual(try cluster.count("SELECT count(*) FROM run_batch WHERE wait_reason LIKE 'health%'", url), 0)
        // Once per change, not per batch; every batch keeps the lag it saw at claim and commit.
        XCTAssertEqual(r.stderr.components(separatedBy: "would wait: standby replay lag").count - 1, 1, r.stderr)
        let run = try cluster.sql("SELECT max(run_id) FROM run_batch", url: url)[0]
        let rows = try cluster.sql(
            "SELECT claim_health || E'\\t' || commit_health || E'\\t' || wait_reason FROM run_batch "
                + "WHERE run_id = \(run) ORDER BY id", url: url)
        XCTAssertEqual(rows.count, 16, "400 records in batches of 25")
        for row in rows {
            let parts = row.components(separatedBy: "\t")
            let claim = try XCTUnwrap(BatchHealth(json: parts[0]), row)
            let commit = try XCTUnwrap(BatchHealth(json: parts[1]), row)
            let lag = try XCTUnwrap(claim.signals.first { $0.signal == "standby_lag_bytes" }, row)
            XCTAssertGreaterThan(lag.value ?? 0, 4_000_000, row)
            XCTAssertEqual(lag.grade, "red")
            XCTAssertEqual(lag.red, 4_000_000)
            XCTAssertGreaterThan(commit["standby_lag_bytes"] ?? 0, 4_000_000, row)
            // After the rate budget's wait when it had one: "max-rate; would wait: health: …".
            XCTAssertTrue(parts[2].contains("would wait: health: standby replay lag"), row)
        }
        let status = try rederive(["status", "--db", url, "--run", run])
        XCTAssertTrue(status.stdout.contains("standby_lag_bytes 2.0M/4.0M"), status.stdout)
    }

    func testASignalTheRoleMayNotReadFollowsTheUnmeasurablePolicy() throws {
        let url = try cluster.importedDatabase(records: 400, seed: 34, scratch: dir)
        let role = "plain_" + UUID().uuidString.prefix(8).lowercased()
        try cluster.sql(
            "CREATE ROLE \(role) LOGIN; GRANT ALL ON ALL TABLES IN SCHEMA public TO \(role); "
                + "GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO \(role)", url: url)
        let plain = url.replacingOccurrences(of: "postgres://postgres@", with: "postgres://\(role)@")
        let derive = ["derive", "--all", "--rewrite", "--batch-size", "25", "--workers", "1", "--db", plain]

        let going = try rederive(derive + ["--unmeasurable", "continue"])
        XCTAssertEqual(going.status, 0, going.stderr)
        let notice = "vacuums on our tables cannot be measured: the role needs pg_monitor"
        XCTAssertEqual(going.stderr.components(separatedBy: notice).count - 1, 1, "once: \(going.stderr)")
        XCTAssertTrue(going.stderr.contains("going on without it (--unmeasurable continue)"), going.stderr)
        XCTAssertFalse(going.stderr.contains("health red"), going.stderr)

        let waiting = try CommandLineTool.Child(
            derive + ["--unmeasurable", "wait:1", "--max-rate", "100"], stderrPath: dir.file("waiting.err"))
        let deadline = Date().addingTimeInterval(60)
        while !waiting.stderr.contains("health red"), waiting.isRunning, Date() < deadline { usleep(50_000) }
        Thread.sleep(forTimeInterval: 1.5)
        let run = try cluster.sql("SELECT max(run_id) FROM derive_range", url: url)[0]
        let done = "SELECT count(*) FROM derive_range WHERE run_id = \(run) AND state = 'done'"
        let held = try cluster.count(done, url)
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertTrue(waiting.isRunning, waiting.stderr)
        XCTAssertEqual(try cluster.count(done, url), held, "nothing committed while it waits")
        XCTAssertLessThan(held, 16, "waited before the end (16 ranges)")
        waiting.signal(SIGTERM)
        XCTAssertEqual(waiting.wait().status, 143, waiting.stderr)
        XCTAssertTrue(waiting.stderr.contains("waiting as on red after 1 s (--unmeasurable wait)"), waiting.stderr)
        XCTAssertTrue(waiting.stderr.contains("health red, waiting with claims given back: "), waiting.stderr)
        XCTAssertTrue(waiting.stderr.contains("cannot be measured (the role needs pg_monitor"), waiting.stderr)
    }
}
