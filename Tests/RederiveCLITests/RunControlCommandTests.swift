import Foundation
import GRDB
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Issue 33 on SQLite: `pause`, `resume` and `throttle` reach a derive that holds the store's
/// run lock, a paused derive commits nothing more and carries on to the store an uninterrupted
/// run leaves, `--exit-when-paused` exits 9, and the batch record is kept, shown and pruned.
final class RunControlCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    /// A store of `records` imported records (identical for every name).
    private func store(_ name: String, records: Int = 1200) throws -> String {
        let corpus = try GeneratedCorpus.path(records: records, seed: 33, coreModelBytes: 200)
        let db = dir.file(name)
        XCTAssertEqual(try rederive(["import", corpus, "--db", db, "-q"]).status, 0)
        return db
    }

    private static let derive = ["derive", "--all", "--rewrite", "--batch-size", "40", "--workers", "1"]

    /// The derive run's checkpoint and batch rows, read beside the running derive.
    private func progress(_ db: String, run: Int64) throws -> [Int64] {
        let rows = try StoreInspection.rows(
            db, "SELECT checkpoint_seq, (SELECT count(*) FROM run_batch WHERE run_id = ?) AS n FROM run WHERE id = ?",
            [run, run])
        return [rows.first?["checkpoint_seq"] ?? 0, rows.first?["n"] ?? 0]
    }

    func testAPausedDeriveCommitsNothingMoreAndCarriesOnToTheUninterruptedStore() throws {
        let reference = try store("reference.sqlite")
        XCTAssertEqual(try rederive(Self.derive + ["--db", reference, "-q"]).status, 0)
        let db = try store("paused.sqlite")
        // 400 records a second: the derive runs about 3 s unpaused.
        let child = try CommandLineTool.Child(
            Self.derive + ["--db", db, "--max-rate", "400"], stderrPath: dir.file("derive.err"))
        let run = try XCTUnwrap(CommandLineTool.waitForProgress(child, db: db, command: "derive", records: 200))
        let runID: Int64 = run["id"]
        let pause = try rederive(["pause", "--db", db, "--reason", "peak traffic"])
        XCTAssertEqual(pause.status, 0, "no exit 6 while the derive holds the run lock: \(pause.stderr)")
        let pausedAt = Date()
        // Within one batch and a second it stops committing: two looks a second apart see the same.
        Thread.sleep(forTimeInterval: 2.5)
        let first = try progress(db, run: runID)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try progress(db, run: runID), first, "nothing committed while paused")
        XCTAssertTrue(child.isRunning, "a paused derive waits")
        let latest = try StoreInspection.rows(
            db, "SELECT max(finished_at) AS t FROM run_batch WHERE run_id = ?", [runID])
        let lastCommit = try XCTUnwrap(RunControlState.seconds(of: latest.first?["t"] ?? ""))
        XCTAssertLessThan(
            lastCommit - pausedAt.timeIntervalSinceReferenceDate, 2.5, "the last commit came within the bound")
        let status = try rederive(["status", "--db", db])
        XCTAssertTrue(status.stdout.contains("paused         every run since 20"), status.stdout)
        XCTAssertTrue(status.stdout.contains("(peak traffic)"), status.stdout)
        let json = try rederive(["status", "--db", db, "--json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        let control = try XCTUnwrap(object["control"] as? [String: Any])
        XCTAssertEqual(control["paused"] as? Bool, true)
        XCTAssertEqual(((control["pauses"] as? [[String: Any]])?.first?["reason"]) as? String, "peak traffic")

        XCTAssertEqual(try rederive(["resume", "--db", db]).status, 0)
        let (exit, _) = child.wait()
        XCTAssertEqual(exit, 0, child.stderr)
        XCTAssertTrue(child.stderr.contains("resumed after"), child.stderr)
        StoreInspection.assertEqual(
            try StoreInspection.dump(db), try StoreInspection.dump(reference), "paused and resumed vs uninterrupted")
        // Every record was in exactly one recorded batch; one of them waited for the pause.
        let batches = try rederive(["status", "--db", db, "--run", String(runID), "--json"])
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: batches.stdoutData) as? [String: Any])
        XCTAssertEqual((report["totals"] as? [String: Any])?["records"] as? Int, 1200, batches.stdout)
        let rows = try XCTUnwrap(report["batches"] as? [[String: Any]])
        XCTAssertEqual(rows.filter { $0["waitReason"] as? String == "paused" }.count, 1, batches.stdout)
        XCTAssertGreaterThan(rows.filter { $0["waitReason"] as? String == "max-rate" }.count, 10)
        var covered: [Int64] = []
        for row in rows { covered += Array((row["seqFrom"] as! Int64)...(row["seqTo"] as! Int64)) }
        XCTAssertEqual(covered, Array(1...1200), "the batches' keys tile the run once")
    }

    func testExitWhenPausedExitsNineAndTheSameCommandCarriesOnAfterResume() throws {
        let reference = try store("reference.sqlite", records: 600)
        XCTAssertEqual(try rederive(Self.derive + ["--db", reference, "-q"]).status, 0)
        let db = try store("cron.sqlite", records: 600)
        let command = Self.derive + ["--db", db, "--max-rate", "300", "--exit-when-paused"]
        let child = try CommandLineTool.Child(command, stderrPath: dir.file("derive.err"))
        XCTAssertNotNil(CommandLineTool.waitForProgress(child, db: db, command: "derive", records: 100))
        XCTAssertEqual(try rederive(["pause", "--db", db, "--reason", "deploy"]).status, 0)
        let (exit, _) = child.wait(timeout: 30)
        XCTAssertEqual(exit, ExitStatus.paused.rawValue, child.stderr)
        // Started again while paused: exits 9 at once, having done nothing.
        let again = try rederive(command)
        XCTAssertEqual(again.status, 9, again.stderr)
        XCTAssertTrue(again.stderr.contains("deploy"), again.stderr)
        // `status --check` does not count a paused exit as a broken run; --max-paused judges the pause.
        let check = try rederive(["status", "--db", db, "--check", "--max-stale", "100000"])
        XCTAssertEqual(check.status, 0, check.stdout)
        Thread.sleep(forTimeInterval: 1.1)
        let late = try rederive(["status", "--db", db, "--check", "--max-stale", "100000", "--max-paused", "1s"])
        XCTAssertEqual(late.status, 5, late.stdout)
        XCTAssertTrue(late.stdout.contains("longer than --max-paused"), late.stdout)
        // copy-store does not carry the control over: refused while it holds, nothing written.
        let copy = try rederive(["copy-store", "--from", db, "--to", dir.file("copy.sqlite")])
        XCTAssertEqual(copy.status, 1, copy.stderr)
        XCTAssertTrue(copy.stderr.contains("does not carry the run control over"), copy.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("copy.sqlite")))

        XCTAssertEqual(try rederive(["resume", "--db", db]).status, 0)
        let done = try rederive(command + ["--metrics-file", dir.file("derive.prom")])
        XCTAssertEqual(done.status, 0, done.stderr)
        XCTAssertTrue(done.stderr.contains("continuing unfinished run"), done.stderr)
        StoreInspection.assertEqual(
            try StoreInspection.dump(db), try StoreInspection.dump(reference), "exited, rerun vs uninterrupted")
        let metrics = try String(contentsOfFile: dir.file("derive.prom"), encoding: .utf8)
        XCTAssertTrue(metrics.contains("rederive_batches{"), metrics)
        XCTAssertTrue(metrics.contains("phase=\"commit\""), metrics)
        XCTAssertTrue(metrics.contains("rederive_paused{pipeline=\"\",reason=\"\"} 0"), metrics)
    }

    func testAPausedDeriveKilledWithSigkillThenResumedEndsAsTheUninterruptedStore() throws {
        let reference = try store("reference.sqlite", records: 600)
        XCTAssertEqual(try rederive(Self.derive + ["--db", reference, "-q"]).status, 0)
        let db = try store("killed.sqlite", records: 600)
        let command = Self.derive + ["--db", db, "--max-rate", "300"]
        let child = try CommandLineTool.Child(command, stderrPath: dir.file("killed.err"))
        let run = try XCTUnwrap(CommandLineTool.waitForProgress(child, db: db, command: "derive", records: 100))
        XCTAssertEqual(try rederive(["pause", "--db", db]).status, 0)
        Thread.sleep(forTimeInterval: 2)
        let paused = try progress(db, run: run["id"])
        child.signal(SIGKILL)
        XCTAssertTrue(child.wait().signaled)
        XCTAssertEqual(try progress(db, run: run["id"])[0], paused[0], "the kill lost nothing committed")
        XCTAssertLessThan(paused[0], 600, "paused part way")

        XCTAssertEqual(try rederive(["resume", "--db", db]).status, 0)
        let rerun = try rederive(command)
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        XCTAssertTrue(rerun.stderr.contains("continuing unfinished run \(run["id"] as Int64)"), rerun.stderr)
        StoreInspection.assertEqual(
            try StoreInspection.dump(db), try StoreInspection.dump(reference), "killed while paused, then resumed")
    }

    func testPauseOfAFinishedOrUnknownRunAndBadValuesAreUsageErrors() throws {
        let db = try store("done.sqlite", records: 50)
        let finished = try rederive(["pause", "--db", db, "--run", "1"])
        XCTAssertEqual(finished.status, 1, finished.stderr)
        XCTAssertTrue(finished.stderr.contains("run 1 is finished (completed)"), finished.stderr)
        let unknown = try rederive(["pause", "--db", db, "--run", "99"])
        XCTAssertEqual(unknown.status, 1, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("no run 99"), unknown.stderr)
        XCTAssertEqual(try rederive(["resume", "--db", db, "--run", "99"]).status, 1)
        // A run's resume says when a pause of every run still holds it.
        XCTAssertEqual(try rederive(["pause", "--db", db, "--reason", "all"]).status, 0)
        let partial = try rederive(["resume", "--db", db, "--run", "1"])
        XCTAssertEqual(partial.status, 0, partial.stderr)
        XCTAssertTrue(partial.stdout.contains("every run is still paused since"), partial.stdout)
        XCTAssertTrue(try rederive(["resume", "--db", db]).stdout.contains("resumed every run"))
        XCTAssertEqual(try rederive(["throttle", "--db", db, "--max-rate", "0"]).status, 1)
        XCTAssertEqual(try rederive(["throttle", "--db", db]).status, 1, "--max-rate or --clear")
        XCTAssertEqual(try rederive(["pause", "--db", db, "--until", "2001-01-01"]).status, 1, "in the past")
        XCTAssertEqual(try rederive(["pause", "--db", dir.file("missing.sqlite")]).status, 1)
        XCTAssertEqual(try rederive(Self.derive + ["--db", db, "--batch-seconds", "0"]).status, 1)
        XCTAssertEqual(try rederive(["status", "--db", db, "--run", "7"]).status, 1)
        // A throttle of every run shows in status and lifts.
        XCTAssertEqual(try rederive(["throttle", "--db", db, "--max-rate", "250"]).status, 0)
        XCTAssertTrue(try rederive(["status", "--db", db]).stdout.contains("max-rate       every run: 250 records/s"))
        XCTAssertEqual(try rederive(["throttle", "--db", db, "--clear"]).status, 0)
        XCTAssertFalse(try rederive(["status", "--db", db]).stdout.contains("max-rate"))
    }

    func testBatchSecondsResizesAKeysetDeriveAndPruneRemovesTheBatchRecord() throws {
        let db = try store("sized.sqlite", records: 1500)
        // A target far below what 500 records take: batches shrink from the first.
        let r = try rederive(
            ["derive", "--db", db, "--all", "--rewrite", "--batch-size", "250", "--batch-seconds", "0.005", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let sizes = try StoreInspection.rows(db, "SELECT records FROM run_batch WHERE run_id = 2 ORDER BY id").map {
            $0["records"] as Int
        }
        XCTAssertEqual(sizes.first, 250, "--batch-size is the first batch")
        // The second is read once the first was taken and sized (read ahead at once, it was 250 too).
        XCTAssertLessThan(sizes.dropFirst().max() ?? 250, 250, "from the second smaller: \(sizes)")
        XCTAssertLessThanOrEqual(sizes.max() ?? 0, 250, "and the largest")
        XCTAssertEqual(sizes.reduce(0, +), 1500)
        let text = try rederive(["status", "--db", db, "--run", "2"])
        XCTAssertTrue(text.stdout.contains("batches        \(sizes.count), 1500 records"), text.stdout)
        // Pruned by age (no run ended before 2000, every run before 2999), and all but the latest run.
        let rows = try StoreInspection.int(db, "SELECT count(*) FROM run_batch")
        XCTAssertEqual(try rederive(["history", "--db", db, "--prune", "--before", "2000-01-01"]).status, 0)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT count(*) FROM run_batch"), rows)
        let prune = try rederive(["history", "--db", db, "--prune", "--keep-runs", "1"])
        XCTAssertEqual(prune.status, 0, prune.stderr)
        XCTAssertTrue(prune.stderr.contains(" batch rows"), prune.stderr)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT count(*) FROM run_batch WHERE run_id <> 2"), 0)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT count(*) FROM run_batch"), sizes.count)
        XCTAssertEqual(try rederive(["history", "--db", db, "--prune", "--before", "2999-01-01"]).status, 0)
        XCTAssertEqual(try StoreInspection.int(db, "SELECT count(*) FROM run_batch"), 0)
    }
}
