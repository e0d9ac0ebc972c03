import Foundation
import GRDB
import XCTest
@testable import RederiveCore
import RederiveCorpus
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Backfill safety on the built binary: no silent downgrade, one writing run per store,
/// undo, and a preview that gates the apply.
final class BackfillSafetyCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var db: String!
    /// Records in the store (every good record of Fixtures/exports).
    private var n = 0

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        db = dir.file("rooms.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/exports", "--db", db, "-q"]).status, 0)
        n = try StoreInspection.int(db, "SELECT COUNT(*) FROM summary")
        XCTAssertGreaterThan(n, 30)
    }

    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    private func summaries(_ path: String? = nil) throws -> [String] {
        try StoreInspection.dump(path ?? db, excluding: .init(seq: false, times: false, runIDs: false))["summary"] ?? []
    }

    /// Makes every stored summary (or those of `where`) look derived by an older build.
    private func makeStale(_ path: String? = nil, where condition: String = "1") throws {
        try StoreInspection.execute(
            path ?? db,
            """
            UPDATE summary SET summary_version = 0, fingerprint = 'v0-old', floor_area_sqm = 1.5,
                summary_json = '{"old":' || record_seq || '}' WHERE \(condition)
            """)
    }

    private func id(at seq: Int) throws -> String {
        try XCTUnwrap(StoreInspection.rows(db, "SELECT id FROM record WHERE seq = ?", [seq]).first?["id"])
    }

    func testACleanImportAndDeriveKeepNoHistory() throws {
        XCTAssertEqual(try rederive(["derive", "--db", db, "--all"]).status, 0)
        XCTAssertEqual(try rederive(["derive", "--db", db, "--all", "--rewrite"]).status, 0)
        XCTAssertEqual(
            try StoreInspection.int(db, "SELECT COUNT(*) FROM summary_history"), 0,
            "only a change of a summary keeps its predecessor")
    }

    // MARK: never downgrade

    func testAnOlderBuildLeavesNewerSummariesAndSaysSo() throws {
        try StoreInspection.execute(db, "UPDATE summary SET summary_version = 3")
        let before = try summaries()

        let status = try rederive(["status", "--db", db])
        XCTAssertTrue(
            status.stdout.contains("\(n) derived by a newer rederive (v3); this is v\(SummaryDeriver.currentVersion)"),
            status.stdout)
        XCTAssertTrue(status.stdout.contains("records        \(n) (0 fresh, 0 stale, \(n) newer)"), status.stdout)

        let imported = try rederive(["import", "Fixtures/exports", "--db", db, "--json"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.contains("\"newer\":\(n)"), imported.stdout)
        let derived = try rederive(["derive", "--db", db, "--all", "--json"])
        XCTAssertEqual(derived.status, 0, derived.stderr)
        XCTAssertTrue(derived.stdout.contains("\"derived\":0,\"newer\":\(n)"), derived.stdout)
        let pipeline = dir.file("nightly.yml")
        try """
        version: 1
        stages:
          - import: { paths: [\(RoomFixtures.repoRoot.path)/Fixtures/exports] }
          - derive: {}
        """.write(toFile: pipeline, atomically: true, encoding: .utf8)
        XCTAssertEqual(try rederive(["run", pipeline, "--db", db, "-q"]).status, 0)
        XCTAssertEqual(try summaries(), before, "nothing downgraded")

        let allowed = try rederive(["derive", "--db", db, "--all", "--allow-downgrade", "--json"])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertTrue(allowed.stdout.contains("\"derived\":\(n)"), allowed.stdout)
        let run = try XCTUnwrap(StoreInspection.run(db))
        XCTAssertEqual(run["allow_downgrade"] as Int, 1, "the downgrade is recorded in the run history")
        XCTAssertEqual(
            try StoreInspection.int(
                db, "SELECT COUNT(*) FROM summary WHERE summary_version = \(SummaryDeriver.currentVersion)"), n)
    }

    // MARK: one writing run per store

    /// A process holding the store's run lock the way a running rederive does.
    private func holdLock(seconds: Double) throws -> Process {
        let script = """
            import fcntl, os, sys, time
            f = open(sys.argv[1], 'a+')
            fcntl.flock(f, fcntl.LOCK_EX)
            f.truncate(0)
            f.write('command=rederive derive --all\\npid=%d\\nhost=host-a\\n\
            since=2026-11-23T03:00:00Z\\n' % os.getpid())
            f.flush()
            time.sleep(float(sys.argv[2]))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, RunLock.path(forStore: db), String(seconds)]
        try process.run()
        for _ in 0..<500 where RunLock.holder(ofStore: db) == nil { usleep(10_000) }
        XCTAssertNotNil(RunLock.holder(ofStore: db), "the stand-in holder took the lock")
        return process
    }

    func testASecondWritingRunFailsFastNamingTheHolder() throws {
        let holder = try holdLock(seconds: 60)
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        let pid = holder.processIdentifier

        let busy = try rederive(["derive", "--db", db, "--all"])
        XCTAssertEqual(busy.status, ExitStatus.busy.rawValue, busy.stderr)
        for part in ["rederive derive --all", "pid \(pid)", "host-a", "since 2026-11-23T03:00:00Z"] {
            XCTAssertTrue(busy.stderr.contains(part), "\(part) in \(busy.stderr)")
        }
        XCTAssertEqual(try rederive(["import", "Fixtures/exports", "--db", db]).status, ExitStatus.busy.rawValue)
        XCTAssertEqual(try rederive(["revert", "--db", db, "--run", "1"]).status, ExitStatus.busy.rawValue)
        XCTAssertEqual(try rederive(["run", "Pipelines/demo.yml", "--db", db]).status, ExitStatus.busy.rawValue)
        let waited = try rederive(["derive", "--db", db, "--wait", "0.3"])
        XCTAssertEqual(waited.status, ExitStatus.busy.rawValue)
        XCTAssertTrue(waited.stderr.contains("waiting for the run lock"), waited.stderr)
        // Read-only commands never wait for it.
        XCTAssertEqual(try rederive(["status", "--db", db]).status, 0)
        XCTAssertEqual(
            try rederive(["derive", "--db", db, "--all", "--dry-run", "--preview-out", dir.file("p")]).status, 0)
        XCTAssertEqual(try rederive(["export", "--db", db, "-o", dir.file("e.jsonl")]).status, 0)

        // The holder dies without releasing (kill -9): the next run takes the lock over.
        kill(pid, SIGKILL)
        holder.waitUntilExit()
        let next = try rederive(["derive", "--db", db])
        XCTAssertEqual(next.status, 0, next.stderr)
        XCTAssertTrue(
            next.stderr.contains("took over the run lock left by rederive derive --all (pid \(pid)"), next.stderr)
        XCTAssertNil(RunLock.holder(ofStore: db))
        XCTAssertEqual(
            try String(contentsOfFile: RunLock.path(forStore: db), encoding: .utf8), "",
            "a clean end leaves no holder")
    }

    func testWaitWaitsForTheHolderToFinish() throws {
        let holder = try holdLock(seconds: 0.5)
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        let r = try rederive(["derive", "--db", db, "--wait", "30"])
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    // MARK: undo

    func testRevertRestoresWhatARunOverwroteExceptLaterChanges() throws {
        try makeStale()
        let before = try summaries()
        let backfill = try rederive(["derive", "--db", db, "--json"])
        XCTAssertEqual(backfill.status, 0, backfill.stderr)
        let backfillRun = try XCTUnwrap(StoreInspection.run(db))["id"] as Int64
        XCTAssertEqual(
            try StoreInspection.int(
                db, "SELECT COUNT(*) FROM summary_history WHERE replaced_by_run = ?",
                [backfillRun]), n, "every overwrite kept its predecessor")

        // A later run changes one record: reverting must not touch it.
        let victim = try id(at: 3)
        try makeStale(where: "record_seq = 3")
        XCTAssertEqual(try rederive(["derive", "--db", db, "--ids", victim]).status, 0)
        let victimNow = try summaries().filter { $0.contains(victim) }

        let history = try rederive(["history", "--db", db, "--id", victim, "--json"])
        XCTAssertEqual(history.status, 0, history.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: history.stdoutData) as? [String: Any])
        XCTAssertEqual((object["history"] as? [Any])?.count, 2)

        let storeBytes = StoreInspection.fileBytes(db)
        let dry = try rederive(["revert", "--db", db, "--run", String(backfillRun), "--dry-run", "--json"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("\"wouldRestore\":\(n - 1),\"conflicts\":1"), dry.stdout)
        XCTAssertEqual(StoreInspection.fileBytes(db), storeBytes, "a dry run writes nothing")

        let revert = try rederive(["revert", "--db", db, "--run", String(backfillRun), "--json"])
        XCTAssertEqual(revert.status, 0, revert.stderr)
        XCTAssertTrue(
            revert.stdout.contains("\"restored\":\(n - 1),\"conflicts\":1,\"alreadyReverted\":0"), revert.stdout)
        XCTAssertTrue(revert.stderr.contains("left untouched (conflicts): \(victim)"), revert.stderr)
        let after = try summaries()
        let revertRun = try XCTUnwrap(StoreInspection.run(db))["id"] as Int64
        XCTAssertEqual(
            try withoutRunIDs(after.filter { !$0.contains(victim) }),
            try withoutRunIDs(before.filter { !$0.contains(victim) }), "restored exactly, derivation time included")
        XCTAssertEqual(
            try StoreInspection.int(db, "SELECT COUNT(*) FROM summary WHERE run_id = ?", [revertRun]), n - 1,
            "restored rows are written by the revert")
        XCTAssertEqual(after.filter { $0.contains(victim) }, victimNow, "the conflict is untouched")

        let again = try rederive(["revert", "--db", db, "--run", String(backfillRun), "--json"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(
            again.stdout.contains("\"restored\":0,\"conflicts\":1,\"alreadyReverted\":\(n - 1)"), again.stdout)
        XCTAssertEqual(try summaries(), after, "reverting twice is harmless")

        let status = try rederive(["status", "--db", db, "--json"])
        let history2 = try XCTUnwrap(
            (JSONSerialization.jsonObject(with: status.stdoutData) as? [String: Any])?["history"]
                as? [String: Any])
        XCTAssertEqual(history2["summaries"] as? Int, n + 1 + (n - 1))
        XCTAssertEqual(try rederive(["history", "--db", db, "--prune", "--keep-runs", "1"]).status, 0)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM summary_history"), n - 1, "the revert's own")

        // Reverting the revert redoes the backfill (the victim, changed since, is left alone).
        let redo = try rederive(["revert", "--db", db, "--run", String(revertRun), "--json"])
        XCTAssertEqual(redo.status, 0, redo.stderr)
        XCTAssertTrue(
            redo.stdout.contains("\"restored\":\(n - 1),\"conflicts\":0,\"alreadyReverted\":0"), redo.stdout)
        XCTAssertEqual(
            try StoreInspection.int(db, "SELECT COUNT(*) FROM summary WHERE summary_version = 0"), 0,
            "every summary is the backfill's again")
    }

    /// Summary dump rows without their run_id column (as `summaries()` gives them).
    private func withoutRunIDs(_ rows: [String]) throws -> [String] {
        rows.map { $0.replacingOccurrences(of: #"run_id=[^ ]*"#, with: "run_id", options: .regularExpression) }
    }

    func testRevertOfAnUnknownRunIsAUsageError() throws {
        XCTAssertEqual(try rederive(["revert", "--db", db, "--run", "99"]).status, 1)
    }

    func testKill9DuringRevertResumesToTheSameResult() throws {
        // A store big enough for a revert to be caught mid-way.
        let export = dir.file("big.jsonl")
        try ExportFixtures.writeLargeExport(records: 3000, seed: 77, to: export)
        let big = dir.file("big.sqlite")
        XCTAssertEqual(try rederive(["import", export, "--db", big, "-q"]).status, 0)
        try makeStale(big)
        XCTAssertEqual(try rederive(["derive", "--db", big, "-q"]).status, 0)
        let runID = try XCTUnwrap(StoreInspection.run(big))["id"] as Int64
        let copy = dir.file("copy.sqlite")
        try FileManager.default.copyItem(atPath: big, toPath: copy)

        XCTAssertEqual(try rederive(["revert", "--db", copy, "--run", String(runID), "-q"]).status, 0)
        let reference = try summaries(copy)

        let child = try CommandLineTool.Child(
            ["revert", "--db", big, "--run", String(runID), "--batch-size", "10"],
            stderrPath: dir.file("revert.err"))
        let progress = CommandLineTool.waitForProgress(child, db: big, command: "revert", records: 200)
        child.signal(SIGKILL)
        _ = child.wait()
        XCTAssertNotNil(progress, "killed mid-way, after some batches were committed")
        let resumed = try rederive(["revert", "--db", big, "--run", String(runID)])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertTrue(resumed.stderr.contains("continuing unfinished run"), resumed.stderr)
        // The same summaries; each restored row names the revert run that wrote it (the killed
        // run, or the one continuing it), so run ids are compared apart.
        XCTAssertEqual(
            try withoutRunIDs(summaries(big)), try withoutRunIDs(reference), "same result as an uninterrupted revert")
        let revertRuns = try StoreInspection.int(
            big, "SELECT COUNT(*) FROM summary WHERE run_id IN (SELECT id FROM run WHERE command = 'revert')")
        XCTAssertEqual(
            revertRuns, try StoreInspection.int(copy, "SELECT COUNT(*) FROM summary WHERE run_id = ?", [runID + 1]))
    }

    // MARK: a preview that gates the apply

    private func plan(_ path: String) throws -> [String: Any] {
        try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    func testAPlanAppliesExactlyWhatWasPreviewed() throws {
        try makeStale(where: "record_seq <= 30")
        let planPath = dir.file("plan.json")
        let before = try summaries()
        let preview = try rederive([
            "derive", "--db", db, "--all", "--dry-run", "--plan", planPath,
            "--preview-out", dir.file("preview"),
        ])
        XCTAssertEqual(preview.status, 0, preview.stderr)
        XCTAssertEqual(try summaries(), before, "the preview writes nothing")
        let p = try plan(planPath)
        XCTAssertEqual((p["counts"] as? [String: Any])?["rewrites"] as? Int, 30)
        XCTAssertEqual((p["store"] as? [String: Any])?["highWaterMark"] as? Int, n)
        XCTAssertEqual((p["fieldChanges"] as? [String: Int])?["estimated_floor_area_sqm"], 30)

        // Records added after the plan are listed, not included.
        let late = dir.file("late.jsonl")
        var options = CorpusGenerator.Options(records: 3, seed: 5)
        options.corruptFraction = 0
        options.collectLines = false
        try ExportFixtures.writeGenerated(options, to: late)
        XCTAssertEqual(try rederive(["import", late, "--db", db, "-q"]).status, 0)
        try makeStale(where: "record_seq > \(n)")

        let apply = try rederive(["derive", "--db", db, "--apply-plan", planPath, "--json"])
        XCTAssertEqual(apply.status, 0, apply.stderr)
        XCTAssertTrue(apply.stdout.contains("\"derived\":30"), apply.stdout)
        XCTAssertTrue(
            apply.stderr.contains("3 records imported after the plan are not part of it; 3 of them need deriving ("),
            apply.stderr)
        XCTAssertTrue(apply.stderr.contains("--all --dry-run --plan plan.json"), apply.stderr)
        XCTAssertEqual(
            try StoreInspection.int(db, "SELECT COUNT(*) FROM summary WHERE summary_version = 0"), 3,
            "the late records stay as they were")
    }

    func testAPlanIsRefusedWhenTheStoreOrTheDeriverChanged() throws {
        try makeStale(where: "record_seq <= 10")
        let planPath = dir.file("plan.json")
        XCTAssertEqual(
            try rederive([
                "derive", "--db", db, "--dry-run", "--plan", planPath,
                "--preview-out", dir.file("preview"),
            ]).status, 0)

        // The store changed since (one more stale record): refused, nothing written.
        try makeStale(where: "record_seq = 20")
        let before = try summaries()
        let changed = try rederive(["derive", "--db", db, "--apply-plan", planPath])
        XCTAssertEqual(changed.status, ExitStatus.refused.rawValue, changed.stderr)
        XCTAssertTrue(changed.stderr.contains("the store changed since the plan"), changed.stderr)
        XCTAssertEqual(try summaries(), before)

        // Another deriver.
        var p = try plan(planPath)
        p["fingerprint"] = "v9-someone-else"
        try JSONSerialization.data(withJSONObject: p).write(to: URL(fileURLWithPath: planPath))
        let deriver = try rederive(["derive", "--db", db, "--apply-plan", planPath])
        XCTAssertEqual(deriver.status, ExitStatus.refused.rawValue, deriver.stderr)
        XCTAssertTrue(deriver.stderr.contains("Make a new plan with this build"), deriver.stderr)

        // Another store at the same path.
        let other = dir.file("other.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/exports", "--db", other, "-q"]).status, 0)
        XCTAssertEqual(
            try rederive([
                "derive", "--db", db, "--dry-run", "--plan", planPath,
                "--preview-out", dir.file("preview"),
            ]).status, 0)
        let elsewhere = try rederive(["derive", "--db", other, "--apply-plan", planPath])
        XCTAssertEqual(elsewhere.status, ExitStatus.refused.rawValue, elsewhere.stderr)
        XCTAssertTrue(elsewhere.stderr.contains("another store"), elsewhere.stderr)
        XCTAssertEqual(try summaries(), before)
    }

    /// S11 (security review 2026-11-27): a plan binds what it says. The review's edit (a
    /// `selection` naming one id, `fieldChanges` and `counts.examined` made small, the rest
    /// left) was applied to every record while its log showed the edited description; each
    /// edit is now refused, naming the plan file and the field, and nothing is written.
    func testAHandEditedPlanIsRefusedNamingTheFileAndTheField() throws {
        try makeStale(where: "record_seq <= 10")
        let planPath = dir.file("plan.json")
        XCTAssertEqual(
            try rederive([
                "derive", "--db", db, "--all", "--dry-run", "--plan", planPath, "--preview-out", dir.file("preview"),
            ]).status, 0)
        let made = try plan(planPath)
        XCTAssertEqual((made["digest"] as? String)?.count, 64, "SHA-256")
        XCTAssertEqual(made["format"] as? Int, DerivePlan.currentFormat)
        let before = try summaries()
        let edits: [(String, (inout [String: Any]) -> Void, String)] = [
            ("\"selection\"", { $0["selection"] = "stale ids=00000000-0000-0000-0000-000000000001" }, "selection"),
            ("\"fieldChanges\"", { $0["fieldChanges"] = ["perimeter_m": 1] }, "fieldChanges"),
            (
                "\"counts.examined\" says 1, applying it finds \(n)",
                {
                    var counts = $0["counts"] as? [String: Any] ?? [:]
                    counts["examined"] = 1
                    $0["counts"] = counts
                }, "examined"
            ),
            ("written by an older build (plan format 1, whose digest anyone", { $0["format"] = 1 }, "format"),
            ("written by an older build (plan format 2, whose digest this build", { $0["format"] = 2 }, "format2"),
        ]
        for (expected, edit, name) in edits {
            var edited = made
            edit(&edited)
            let path = dir.file("edited-\(name).json")
            try JSONSerialization.data(withJSONObject: edited).write(to: URL(fileURLWithPath: path))
            let r = try rederive(["derive", "--db", db, "--apply-plan", path])
            XCTAssertEqual(r.status, ExitStatus.refused.rawValue, "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(path + ": "), "names the file: \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(expected), "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("Nothing was written"), r.stderr)
            XCTAssertEqual(try summaries(), before, "\(name): nothing written")
        }
        // The plan as made applies.
        let apply = try rederive(["derive", "--db", db, "--apply-plan", planPath, "--json"])
        XCTAssertEqual(apply.status, 0, apply.stderr)
        XCTAssertTrue(apply.stdout.contains("\"derived\":10"), apply.stdout)
    }

    func testMaxChangesRefusesBeforeWritingAnything() throws {
        try makeStale(where: "record_seq <= 10")
        let before = try summaries()
        for limit in ["5", "20%"] {
            let r = try rederive(["derive", "--db", db, "--max-changes", limit])
            XCTAssertEqual(r.status, ExitStatus.refused.rawValue, r.stderr)
            XCTAssertTrue(
                r.stderr.contains(
                    "10 of 10 existing summaries would be rewritten "
                        + "(10 would change, 0 unchanged: version/fingerprint only)"
                ), r.stderr)
            XCTAssertEqual(try summaries(), before, "nothing written")
        }
        // The nightly's guard: new records are fine, rewrites stop the stage with a pointer to the backfill.
        let pipeline = dir.file("guarded.yml")
        try """
        version: 1
        stages:
          - derive: { max-changes: 0 }
        """.write(toFile: pipeline, atomically: true, encoding: .utf8)
        let nightly = try rederive(["run", pipeline, "--db", db])
        XCTAssertEqual(nightly.status, ExitStatus.refused.rawValue, nightly.stderr)
        XCTAssertTrue(nightly.stderr.contains("backfill"), nightly.stderr)
        XCTAssertEqual(try summaries(), before)
        let allowed = try rederive(["derive", "--db", db, "--max-changes", "10", "--json"])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertTrue(allowed.stdout.contains("\"derived\":10"), allowed.stdout)
    }
}
