import Foundation
import RederivePostgres
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// The derive split across worker processes that claim ranges in the database: each record
/// derived once, a killed, stopped, paused or poisoned worker's ranges, and a server lost
/// mid-run.
extension PostgresStoreTests {
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
