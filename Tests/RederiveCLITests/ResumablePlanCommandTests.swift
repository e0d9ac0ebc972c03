import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// A reviewed plan's apply on the built binary, killed (`kill -9`) mid-way and run again:
/// it finishes the same run, to exactly the store an uninterrupted apply makes; a finished
/// plan is reported, not refused; records changed outside the plan are named.
final class ResumablePlanCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!
    /// A store of 3,000 records, two thirds of them stale, with its plan.
    private var db: String!
    private var planPath: String!
    /// What the plan's uninterrupted apply leaves (`applied`).
    private var reference: [String: [String]]!

    /// The stale store and its plan as every test starts from them, made once per test process
    /// (a 3,000-record export written, imported and previewed); each test works on a copy (a copy
    /// keeps the store's identity, so the plan is its plan too). With them, what the plan's
    /// uninterrupted apply leaves (`applied`), which five tests compare their store with.
    private struct Template {
        let dir: TemporaryDirectory
        let db: String
        let plan: String
        let reference: [String: [String]]
    }

    private struct SetUpFailure: Error, CustomStringConvertible {
        let description: String
    }

    nonisolated(unsafe) private static var template: Result<Template, Error>?
    private static let lock = NSLock()

    override class func tearDown() {
        lock.withLock { template = nil }
        super.tearDown()
    }

    private static func makeTemplate() throws -> Template {
        let dir = try TemporaryDirectory()
        let db = dir.file("big.sqlite")
        let export = dir.file("big.jsonl")
        try ExportFixtures.writeLargeExport(records: 3000, seed: 91, to: export)
        let imported = try CommandLineTool.invoke(["import", export, "--db", db, "-q"], scratch: dir)
        guard imported.status == 0 else { throw SetUpFailure(description: "import: \(imported.stderr)") }
        try StoreInspection.execute(
            db,
            """
            UPDATE summary SET summary_version = 0, fingerprint = 'v0-old', floor_area_sqm = 1.5,
                summary_json = '{"old":' || record_seq || '}' WHERE record_seq % 3 <> 0
            """)
        let plan = dir.file("plan.json")
        let preview = try CommandLineTool.invoke(
            ["derive", "--db", db, "--dry-run", "--plan", plan, "--preview-out", dir.file("preview")], scratch: dir)
        guard preview.status == 0 else { throw SetUpFailure(description: "preview: \(preview.stderr)") }
        // The same plan applied uninterrupted to a copy of the store.
        let reference = dir.file("reference.sqlite")
        try FileManager.default.copyItem(atPath: db, toPath: reference)
        let referenceApply = try CommandLineTool.invoke(apply(reference, plan: plan), scratch: dir)
        guard referenceApply.status == 0 else {
            throw SetUpFailure(description: "reference apply: \(referenceApply.stderr)")
        }
        return Template(dir: dir, db: db, plan: plan, reference: try applied(reference))
    }

    override func setUpWithError() throws {
        let template = try Self.lock.withLock {
            if let made = Self.template { return try made.get() }
            let made = Result { try Self.makeTemplate() }
            Self.template = made
            return try made.get()
        }
        dir = try TemporaryDirectory()
        db = dir.file("big.sqlite")
        planPath = dir.file("plan.json")
        reference = template.reference
        try FileManager.default.copyItem(atPath: template.db, toPath: db)
        try FileManager.default.copyItem(atPath: template.plan, toPath: planPath)
    }

    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    private static func apply(_ store: String, plan: String, _ extra: [String] = []) -> [String] {
        ["derive", "--db", store, "--apply-plan", plan, "--batch-size", "10", "--workers", "1"] + extra
    }

    private func apply(_ store: String, _ extra: [String] = []) -> [String] {
        Self.apply(store, plan: planPath, extra)
    }

    /// Starts `arguments`, kills the process with SIGKILL once its run read `records` records.
    private func killMidApply(_ arguments: [String], records: Int) throws -> Row {
        let child = try CommandLineTool.Child(arguments, stderrPath: dir.file("killed-\(UUID().uuidString).err"))
        let progress = CommandLineTool.waitForProgress(child, db: db, command: "derive", records: records, after: 1)
        child.signal(SIGKILL)
        let (status, signaled) = child.wait()
        XCTAssertTrue(signaled, "killed, not finished (status \(status))")
        let run = try XCTUnwrap(progress, "killed after some batches were committed")
        let killed = try XCTUnwrap(StoreInspection.run(db, id: run["id"]))
        XCTAssertEqual(killed["status"] as String, "running", "a killed run cannot record its end")
        XCTAssertLessThan(killed["records_done"] as Int, 2000, "killed before the end")
        return killed
    }

    /// Everything an apply leaves: summaries with the run that wrote them, the history with
    /// the run that replaced each, and the run rows' outcome and counts.
    private static func applied(_ path: String) throws -> [String: [String]] {
        var dump = try StoreInspection.dump(path, excluding: .init(seq: false, times: true, runIDs: false))
        dump["summary_history"] = try StoreInspection.rows(
            path, "SELECT replaced_by_run, record_seq, summary_version, fingerprint, summary_json FROM summary_history"
        ).map { "\($0)" }.sorted()
        dump["run"] = try StoreInspection.rows(
            path,
            """
            SELECT id, command, resume_key, status, exit_status, records_read, records_done, records_unchanged,
                   records_skipped, records_newer, checkpoint_seq, upper_bound_seq FROM run
            """
        ).map { "\($0)" }.sorted()
        return dump
    }

    /// SIGTERM while the apply checks its plan (before its first write) is acted on after the
    /// batch in hand, not once the whole check ended (issue 36 #8): exit 143, nothing written,
    /// no run begun; the next apply is a normal one.
    func testASignalDuringThePlanCheckStopsItWithNothingWritten() throws {
        let before = try Self.applied(db)
        let err = dir.file("check.err")
        // One record per batch: the check takes many batches, so the signal lands inside it.
        let child = try CommandLineTool.Child(
            ["derive", "--db", db, "--apply-plan", planPath, "--batch-size", "1", "--workers", "1"], stderrPath: err)
        // The log line just before the check: the signal handlers are installed by then.
        while child.isRunning && !child.stderr.contains("applying the plan") { usleep(2_000) }
        child.signal(SIGTERM)
        let (status, signaled) = child.wait()
        XCTAssertFalse(signaled, child.stderr)
        XCTAssertEqual(status, ExitStatus.terminated.rawValue, child.stderr)
        XCTAssertTrue(
            child.stderr.contains("derive stopped by SIGTERM during the plan check (exit 143): nothing was written"),
            child.stderr)
        StoreInspection.assertEqual(try Self.applied(db), before, "nothing written, no run begun")
        let next = try rederive(apply(db))
        XCTAssertEqual(next.status, 0, next.stderr)
        XCTAssertFalse(next.stderr.contains("finishing this plan's apply"), next.stderr)
    }

    func testAnApplyKilledMidWayFinishesAsTheSameRunWithTheUninterruptedResult() throws {
        let killed = try killMidApply(apply(db), records: 400)
        let runID: Int64 = killed["id"]

        let resumed = try rederive(apply(db))
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("finishing this plan's apply (run \(runID)"), resumed.stderr)
        XCTAssertTrue(
            resumed.stderr.contains("derive (run \(runID), continued): 2000 read, 2000 derived"), resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("`rederive revert --db \(db!) --run \(runID)`"), resumed.stderr)
        StoreInspection.assertEqual(try Self.applied(db), reference, "resumed apply vs uninterrupted")
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM summary_history"), 2000)

        // Again, as a cron retry would: already applied, nothing written, success.
        let before = try Self.applied(db)
        let again = try rederive(apply(db, ["--json"]))
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(
            again.stderr.contains("this plan was already applied by run \(runID); nothing written"), again.stderr)
        XCTAssertTrue(again.stdout.contains("\"runId\":\(runID)"), again.stdout)
        XCTAssertTrue(again.stdout.contains("already applied by run \(runID)"), again.stdout)
        StoreInspection.assertEqual(try Self.applied(db), before, "a finished plan writes nothing")

        // One run did it all: reverting it restores every summary the plan replaced.
        XCTAssertEqual(try rederive(["revert", "--db", db, "--run", String(runID), "-q"]).status, 0)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM summary WHERE summary_version = 0"), 2000)
    }

    func testAnApplyKilledTwiceStillFinishesToTheSameResult() throws {
        let first = try killMidApply(apply(db), records: 200)
        let second = try killMidApply(apply(db), records: 900)
        XCTAssertEqual(second["id"] as Int64, first["id"] as Int64, "the same run, reopened")
        let resumed = try rederive(apply(db))
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        StoreInspection.assertEqual(try Self.applied(db), reference, "killed twice vs uninterrupted")
    }

    func testAnApplyStoppedBySIGTERMFinishesWhenRunAgain() throws {
        let child = try CommandLineTool.Child(apply(db), stderrPath: dir.file("stopped.err"))
        XCTAssertNotNil(CommandLineTool.waitForProgress(child, db: db, command: "derive", records: 300, after: 1))
        child.signal(SIGTERM)
        let (status, _) = child.wait()
        XCTAssertEqual(status, 143, child.stderr)
        XCTAssertEqual(try XCTUnwrap(StoreInspection.run(db, id: 2))["status"] as String, "interrupted")
        let resumed = try rederive(apply(db))
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("finishing this plan's apply (run 2"), resumed.stderr)
        StoreInspection.assertEqual(try Self.applied(db), reference, "stopped apply vs uninterrupted")
    }

    /// On SQLite one process applies a plan: a second one started while it runs is busy
    /// (exit 6, writing nothing), and the first finishes to the uninterrupted result. (On
    /// PostgreSQL they share the run: `PostgresPlanApplyTests`.)
    func testASecondApplyWhileOneRunsIsBusyOnSQLite() throws {
        let child = try CommandLineTool.Child(apply(db), stderrPath: dir.file("first.err"))
        XCTAssertNotNil(CommandLineTool.waitForProgress(child, db: db, command: "derive", records: 100, after: 1))
        let second = try rederive(apply(db))
        XCTAssertEqual(second.status, ExitStatus.busy.rawValue, second.stderr)
        let (status, _) = child.wait()
        XCTAssertEqual(status, 0, child.stderr)
        StoreInspection.assertEqual(try Self.applied(db), reference, "busy second apply vs uninterrupted")
    }

    func testAResumedApplyRefusesRecordsChangedOutsideThePlanAndNamesThem() throws {
        _ = try killMidApply(apply(db), records: 400)
        // A record the plan still has to write (stale, late in the store), derived outside it.
        let id: String = try XCTUnwrap(
            StoreInspection.rows(db, "SELECT id FROM record WHERE seq = 2999").first?["id"])
        XCTAssertEqual(try rederive(["derive", "--db", db, "--ids", id, "-q"]).status, 0)
        let before = try Self.applied(db)

        let refused = try rederive(apply(db))
        XCTAssertEqual(refused.status, ExitStatus.refused.rawValue, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("the store changed since the plan"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("Changed outside the plan: 1 record, \(id)"), refused.stderr)
        StoreInspection.assertEqual(try Self.applied(db), before, "nothing written")
    }

    func testAPipelineStageAppliesThePlanFinishesItAfterAKillAndThenSaysItIsDone() throws {
        let pipeline = dir.file("apply.yml")
        try """
        version: 1
        name: backfill-apply
        stages:
          - derive: { apply-plan: plan.json, batch-size: 10, workers: 1 }
        """.write(toFile: pipeline, atomically: true, encoding: .utf8)
        let arguments: [String] = ["run", pipeline, "--db", db]
        let killed = try killMidApply(arguments, records: 400)
        let resumed = try rederive(arguments)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("finishing this plan's apply (run \(killed["id"] as Int64)"))
        StoreInspection.assertEqual(try Self.applied(db), reference, "pipeline apply resumed vs uninterrupted")
        let again = try rederive(arguments)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("already applied by run \(killed["id"] as Int64)"), again.stderr)

        // The stage applies the plan's own selection: no selection of its own.
        try """
        version: 1
        stages:
          - derive: { apply-plan: plan.json, all: true }
        """.write(toFile: pipeline, atomically: true, encoding: .utf8)
        let mixed = try rederive(arguments)
        XCTAssertEqual(mixed.status, ExitStatus.usage.rawValue, mixed.stderr)
        XCTAssertTrue(mixed.stderr.contains("\"apply-plan\" in stage derive applies the plan's own selection"))
    }
}
