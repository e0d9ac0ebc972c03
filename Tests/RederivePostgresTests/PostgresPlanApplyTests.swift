import Foundation
import XCTest
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// A plan's apply on a real PostgreSQL server through the built binary: killed (`kill -9`)
/// mid-way and run again, it finishes the same run, to exactly what an uninterrupted apply
/// of the same plan makes on a twin store; run once more, it says the plan is applied.
/// Spread over processes (`--processes 2`) or joined by a second "host" while it runs, it
/// is one run with exactly the uninterrupted result too.
final class PostgresPlanApplyTests: XCTestCase {
    private var cluster: PostgresCluster!
    private var dir = ""

    override func setUpWithError() throws {
        cluster = try PostgresCluster.shared()
        dir = NSTemporaryDirectory() + "rederive-pgplan-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // A killed process's ranges are taken again after its lease: one second here.
        setenv("REDERIVE_LEASE_SECONDS", "1", 1)
    }

    override func tearDownWithError() throws {
        unsetenv("REDERIVE_LEASE_SECONDS")
        try? FileManager.default.removeItem(atPath: dir)
    }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: try TemporaryDirectory())
    }

    /// A store of `corpus` with two thirds of its summaries made stale, and its plan.
    private func staleStore(_ corpus: String, name: String) throws -> (url: String, plan: String) {
        let url = try cluster.newDatabase()
        XCTAssertEqual(try rederive(["import", corpus, "--db", url, "--quiet"]).status, 0)
        try cluster.sql(
            """
            UPDATE summary SET summary_version = 0, fingerprint = 'v0-old', floor_area_sqm = 1.5,
                summary_json = '{"old":' || record_seq || '}' WHERE record_seq % 3 <> 0
            """, url: url)
        let plan = dir + "/\(name)-plan.json"
        let preview = try rederive([
            "derive", "--db", url, "--dry-run", "--plan", plan, "--preview-out", dir + "/\(name)-preview", "--quiet",
        ])
        XCTAssertEqual(preview.status, 0, preview.stderr)
        return (url, plan)
    }

    /// The applied reference (a database on the shared cluster), made by the first test that
    /// needs it and only read after: every test's reference was the same store.
    nonisolated(unsafe) private static var reference: Result<(url: String, plan: String), Error>?
    private static let lock = NSLock()

    /// Two twin stale stores of one 1,500-record corpus, each with its plan: `reference` already
    /// applied without interruption (the result every test compares with; one per test process),
    /// `store` not yet.
    private func appliedReferenceAndStaleStore() throws -> (
        reference: (url: String, plan: String), store: (url: String, plan: String)
    ) {
        let corpus = try GeneratedCorpus.path(records: 1500, seed: 3, coreModelBytes: 200)
        let reference = try Self.lock.withLock {
            if let made = Self.reference { return try made.get() }
            let made = Result { () throws -> (url: String, plan: String) in
                let reference = try staleStore(corpus, name: "reference")
                let uninterrupted = try rederive(apply(reference))
                guard uninterrupted.status == 0 else {
                    throw PostgresCluster.Failure(description: "the reference apply failed: \(uninterrupted.stderr)")
                }
                return reference
            }
            Self.reference = made
            return try made.get()
        }
        return (reference, try staleStore(corpus, name: "store"))
    }

    private func apply(_ s: (url: String, plan: String)) -> [String] {
        ["derive", "--db", s.url, "--apply-plan", s.plan, "--batch-size", "20", "--workers", "1"]
    }

    /// Waits (two minutes at most) until `child` has committed `ranges` derive ranges to `url`,
    /// or has ended.
    private func waitForDoneRanges(_ ranges: Int, of url: String, while child: CommandLineTool.Child) {
        let deadline = Date().addingTimeInterval(120)
        var done = 0
        while child.isRunning && Date() < deadline && done < ranges {
            done =
                Int(
                    (try? cluster.sql("SELECT count(*) FROM derive_range WHERE state = 'done'", url: url))?
                        .first ?? "0") ?? 0
            usleep(2_000)
        }
    }

    /// What an apply leaves, keyed by record id: summaries with their writing run, the
    /// history with the replacing run, and the runs' outcome and totals.
    private func applied(_ url: String) throws -> [String] {
        try cluster.sql(
            """
            SELECT 'summary', r.id, s.summary_version, s.fingerprint, s.summary_json, s.run_id
            FROM summary s JOIN record r ON r.seq = s.record_seq ORDER BY r.id
            """, url: url)
            + cluster.sql(
                """
                SELECT 'history', r.id, h.replaced_by_run, h.summary_version, h.summary_json
                FROM summary_history h JOIN record r ON r.seq = h.record_seq ORDER BY r.id, h.replaced_by_run
                """, url: url)
            + cluster.sql(
                """
                SELECT 'run', id, command, status, exit_status, records_read, records_done, records_unchanged,
                       records_skipped, records_newer FROM run ORDER BY id
                """, url: url)
    }

    func testAnApplyKilledMidWayFinishesAsTheSameRunWithTheUninterruptedResult() throws {
        let (reference, store) = try appliedReferenceAndStaleStore()
        let child = try CommandLineTool.Child(apply(store), stderrPath: dir + "/killed.err")
        waitForDoneRanges(10, of: store.url, while: child)
        child.signal(SIGKILL)
        let (_, signaled) = child.wait()
        XCTAssertTrue(signaled, "killed, not finished")
        let left = try cluster.sql("SELECT count(*) FROM derive_range WHERE state <> 'done'", url: store.url)
        XCTAssertNotEqual(left, ["0"], "killed before the end")
        let runID = try cluster.sql("SELECT id FROM run WHERE command = 'derive'", url: store.url)
        XCTAssertEqual(runID.count, 1)

        let resumed = try rederive(apply(store))
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("finishing this plan's apply (run \(runID[0])"), resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("rederive revert --db \(store.url) --run \(runID[0])"), resumed.stderr)
        XCTAssertEqual(try applied(store.url), try applied(reference.url), "resumed apply vs uninterrupted")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM summary_history", url: store.url), ["1000"])

        let again = try rederive(apply(store))
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("this plan was already applied by run \(runID[0])"), again.stderr)
        XCTAssertEqual(try applied(store.url), try applied(reference.url), "a finished plan writes nothing")
    }

    func testAnApplySpreadOverTwoProcessesIsOneRunWithTheUninterruptedResult() throws {
        let (reference, store) = try appliedReferenceAndStaleStore()

        // Both processes check the plan while the other may already be committing ranges.
        let spread = try rederive(apply(store) + ["--processes", "2"])
        XCTAssertEqual(spread.status, 0, spread.stderr)
        try assertSame(try applied(store.url), try applied(reference.url), "two processes vs one")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM run WHERE command = 'derive'", url: store.url), ["1"])
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM summary_history", url: store.url), ["1000"])
    }

    func testASecondHostJoiningARunningApplyGivesTheUninterruptedResult() throws {
        let (reference, store) = try appliedReferenceAndStaleStore()

        let first = try CommandLineTool.Child(apply(store), stderrPath: dir + "/first.err")
        // The second "host" starts once the first has committed a range: its check of the plan
        // meets the first one's writes, and ranges go on being committed while it checks.
        waitForDoneRanges(1, of: store.url, while: first)
        XCTAssertTrue(first.isRunning, "the first apply is still running when the second starts")
        let second = try CommandLineTool.Child(apply(store), stderrPath: dir + "/second.err")
        let (secondStatus, _) = second.wait()
        let (firstStatus, _) = first.wait()
        XCTAssertEqual(firstStatus, 0, first.stderr)
        XCTAssertEqual(secondStatus, 0, second.stderr)
        XCTAssertFalse(second.stderr.contains("the store changed since the plan"), second.stderr)
        try assertSame(try applied(store.url), try applied(reference.url), "joined apply vs uninterrupted")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM run WHERE command = 'derive'", url: store.url), ["1"])
    }

    func testTwoHostsStartingOneApplyTogetherShareItsRun() throws {
        let (reference, store) = try appliedReferenceAndStaleStore()

        // Host B reads the plan's runs before host A has begun the run, then checks slowly (one
        // record a read) while A, done checking, commits ranges: B meets the writes of a run
        // it did not know, which is still the plan's.
        let hostA = try CommandLineTool.Child(apply(store), stderrPath: dir + "/hostA.err")
        let hostB = try CommandLineTool.Child(
            ["derive", "--db", store.url, "--apply-plan", store.plan, "--batch-size", "1", "--workers", "1"],
            stderrPath: dir + "/hostB.err")
        for host in [hostA, hostB] {
            let (status, _) = host.wait()
            XCTAssertEqual(status, 0, host.stderr)
        }
        try assertSame(try applied(store.url), try applied(reference.url), "two hosts vs one")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM run WHERE command = 'derive'", url: store.url), ["1"])
    }

    func testAPipelineApplyStageOnTwoHostsSharesThePlansRun() throws {
        let (reference, store) = try appliedReferenceAndStaleStore()
        let pipeline = dir + "/apply.yml"
        try """
        version: 1
        name: backfill-apply
        stages:
          - derive: { apply-plan: store-plan.json, batch-size: 20, workers: 1 }
        """.write(toFile: pipeline, atomically: true, encoding: .utf8)
        // As above: host B checks slowly while host A commits ranges.
        let hostA = try CommandLineTool.Child(["run", pipeline, "--db", store.url], stderrPath: dir + "/pipeA.err")
        let hostB = try CommandLineTool.Child(
            ["run", pipeline, "--db", store.url, "--batch-size", "1"], stderrPath: dir + "/pipeB.err")
        for host in [hostA, hostB] {
            let (status, _) = host.wait()
            XCTAssertEqual(status, 0, host.stderr)
        }
        try assertSame(try applied(store.url), try applied(reference.url), "pipeline on two hosts vs one apply")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM run WHERE command = 'derive'", url: store.url), ["1"])
    }

    /// Compares two `applied` listings, naming the first difference (not the whole listings).
    private func assertSame(
        _ a: [String], _ b: [String], _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        guard a != b else { return }
        let i = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        XCTFail(
            "\(what): \(a.count) vs \(b.count) rows; first difference at row \(i): "
                + "\(i < a.count ? String(a[i].prefix(200)) : "-") vs \(i < b.count ? String(b[i].prefix(200)) : "-")",
            file: file, line: line)
    }
}
