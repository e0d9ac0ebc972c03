import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Issue 33 on PostgreSQL: a `pause` from a third process reaches two worker processes that
/// share a run; they commit nothing more, give their claimed ranges back and wait through more
/// than ten leases, and once resumed every range is derived once, to the store an
/// uninterrupted run leaves. A paused worker killed with SIGKILL held nothing. An import takes
/// the same flags and obeys the same pause.
final class PostgresRunControlTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var cluster: PostgresCluster!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        cluster = try PostgresCluster.shared()
        // Short leases: the pause below lasts more than ten of them.
        setenv("REDERIVE_LEASE_SECONDS", "1", 1)
    }

    override func tearDown() {
        unsetenv("REDERIVE_LEASE_SECONDS")
        dir = nil
    }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    private static let derive = ["derive", "--all", "--rewrite", "--batch-size", "25", "--workers", "1"]

    func testAPauseFromAThirdProcessHoldsTwoWorkersThroughTenLeasesAndLosesNothing() throws {
        let reference = try cluster.importedDatabase(records: 1000, seed: 33, scratch: dir)
        XCTAssertEqual(try rederive(Self.derive + ["--db", reference, "-q"]).status, 0)
        let url = try cluster.importedDatabase(records: 1000, seed: 33, scratch: dir)
        let command = Self.derive + ["--db", url, "--max-rate", "250"]
        let workers = try (0..<2).map {
            try CommandLineTool.Child(command, stderrPath: dir.file("worker\($0).err"))
        }
        let deadline = Date().addingTimeInterval(60)
        // Both workers deriving: each has committed a range.
        let committers = "SELECT count(DISTINCT claimed_by) FROM derive_range WHERE state = 'done'"
        while try cluster.count(committers, url) < 2, Date() < deadline { usleep(20_000) }
        let pause = try rederive(["pause", "--db", url, "--reason", "replica lag"])
        XCTAssertEqual(pause.status, 0, pause.stderr)
        // Within one batch (0.1 s of budget) and a second, both obey: nothing claimed, nothing new done.
        Thread.sleep(forTimeInterval: 2)
        XCTAssertEqual(
            try cluster.count("SELECT count(*) FROM derive_range WHERE state = 'claimed'", url), 0, "given back")
        let done = try cluster.count("SELECT count(*) FROM derive_range WHERE state = 'done'", url)
        Thread.sleep(forTimeInterval: 9.5)  // more than ten 1 s leases in all
        XCTAssertEqual(try cluster.count("SELECT count(*) FROM derive_range WHERE state = 'done'", url), done)
        XCTAssertLessThan(done, 40, "the run was paused part way")
        XCTAssertTrue(workers.allSatisfy(\.isRunning), "paused workers wait")
        let status = try rederive(["status", "--db", url])
        XCTAssertTrue(status.stdout.contains("paused         every run since"), status.stdout)
        XCTAssertTrue(status.stdout.contains("(replica lag)"), status.stdout)

        XCTAssertEqual(try rederive(["resume", "--db", url]).status, 0)
        for worker in workers {
            let (exit, _) = worker.wait()
            XCTAssertEqual(exit, 0, worker.stderr)
            XCTAssertFalse(worker.stderr.contains("taken over by another process"), worker.stderr)
        }
        XCTAssertEqual(try cluster.count("SELECT count(*) FROM derive_range WHERE state <> 'done'", url), 0)
        XCTAssertEqual(
            try cluster.count("SELECT count(*) FROM derive_range WHERE attempt - released <> 1", url), 0,
            "every range committed by its one counted attempt")
        XCTAssertEqual(
            try cluster.summariesDigest(url), try cluster.summariesDigest(reference),
            "paused and resumed vs uninterrupted")
        let run = try cluster.sql("SELECT max(run_id) FROM derive_range", url: url)[0]
        XCTAssertEqual(try cluster.count("SELECT sum(records) FROM run_batch WHERE run_id = \(run)", url), 1000)
        XCTAssertEqual(try cluster.count("SELECT count(DISTINCT worker) FROM run_batch WHERE run_id = \(run)", url), 2)
        XCTAssertEqual(
            try cluster.count("SELECT count(*) FROM run_batch WHERE run_id = \(run) AND wait_reason = 'paused'", url),
            2,
            "each worker recorded its wait")
    }

    func testBatchSecondsCutsRangesAsTheyAreClaimedAndEveryRecordIsDerivedOnce() throws {
        setenv("REDERIVE_LEASE_SECONDS", "60", 1)
        let reference = try cluster.importedDatabase(records: 1200, seed: 33, scratch: dir)
        XCTAssertEqual(try rederive(Self.derive + ["--db", reference, "-q"]).status, 0)
        let url = try cluster.importedDatabase(records: 1200, seed: 33, scratch: dir)
        // Ranges of 100 cut at the start; a target far below what 300 records take cuts them smaller.
        let command = [
            "derive", "--all", "--rewrite", "--batch-size", "100", "--workers", "1", "--batch-seconds", "0.002",
            "--db", url,
        ]
        let workers = try (0..<2).map { try CommandLineTool.Child(command, stderrPath: dir.file("cut\($0).err")) }
        for worker in workers {
            let (exit, _) = worker.wait()
            XCTAssertEqual(exit, 0, worker.stderr)
        }
        XCTAssertGreaterThan(
            try cluster.count("SELECT count(*) FROM derive_range", url), 12, "ranges were cut as claimed")
        XCTAssertEqual(try cluster.count("SELECT count(*) FROM derive_range WHERE state <> 'done'", url), 0)
        XCTAssertEqual(
            try cluster.summariesDigest(url), try cluster.summariesDigest(reference),
            "cut ranges vs one uninterrupted run")
        // The ranges tile the keys once: each starts right after the one before it ends.
        let ranges = try cluster.sql("SELECT seq_from || ':' || seq_to FROM derive_range ORDER BY seq_from", url: url)
        let bounds = ranges.map { $0.split(separator: ":").map { Int64($0)! } }
        XCTAssertEqual(bounds.first?.first, 1)
        XCTAssertEqual(bounds.last?.last, 1200)
        for (a, b) in zip(bounds, bounds.dropFirst()) { XCTAssertEqual(b[0], a[1] + 1, "\(ranges)") }
        XCTAssertEqual(try cluster.count("SELECT sum(records_read) FROM derive_range", url), 1200)
    }

    func testBatchSecondsClaimsRangesOfTheSizersSizeFromTheSecond() throws {
        setenv("REDERIVE_LEASE_SECONDS", "60", 1)
        let url = try cluster.importedDatabase(records: 600, seed: 33, scratch: dir)
        // Ranges of 100 cut at the start, a target far below what 100 records take: the first claim
        // is a whole range (`--batch-size`), the second is cut to what the first was sized to (it
        // was claimed ahead at `--batch-size`, while the first was derived).
        let r = try rederive(
            Self.derive.filter { $0 != "25" && $0 != "--batch-size" } + [
                "--batch-size", "100", "--batch-seconds", "0.001", "--db", url, "-q",
            ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let run = try cluster.sql("SELECT max(run_id) FROM derive_range", url: url)[0]
        let sizes = try cluster.sql("SELECT records FROM run_batch WHERE run_id = \(run) ORDER BY id", url: url)
            .compactMap { Int($0) }.filter { $0 > 0 }
        XCTAssertEqual(sizes.first, 100, "--batch-size is the first batch")
        XCTAssertLessThan(sizes.dropFirst().max() ?? 100, 100, "from the second, the sizer's size: \(sizes)")
        XCTAssertEqual(sizes.reduce(0, +), 600)
        XCTAssertEqual(
            try cluster.count("SELECT count(*) FROM derive_range WHERE seq_to - seq_from + 1 >= 100", url), 1,
            "one range claimed whole")
        XCTAssertEqual(try cluster.count("SELECT count(*) FROM derive_range WHERE state <> 'done'", url), 0)
    }

    func testAPausedWorkerKilledHoldsNothingAndExitWhenPausedCarriesOn() throws {
        setenv("REDERIVE_LEASE_SECONDS", "60", 1)  // a held range would keep the rerun waiting a minute
        let reference = try cluster.importedDatabase(records: 500, seed: 33, scratch: dir)
        XCTAssertEqual(try rederive(Self.derive + ["--db", reference, "-q"]).status, 0)
        let url = try cluster.importedDatabase(records: 500, seed: 33, scratch: dir)
        let command = Self.derive + ["--db", url, "--max-rate", "200"]
        let worker = try CommandLineTool.Child(command, stderrPath: dir.file("killed.err"))
        let deadline = Date().addingTimeInterval(60)
        while try cluster.count("SELECT count(*) FROM derive_range WHERE state = 'done'", url) < 2, Date() < deadline {
            usleep(20_000)
        }
        XCTAssertEqual(try rederive(["pause", "--db", url]).status, 0)
        Thread.sleep(forTimeInterval: 2)
        XCTAssertEqual(try cluster.count("SELECT count(*) FROM derive_range WHERE state = 'claimed'", url), 0)
        worker.signal(SIGKILL)
        XCTAssertTrue(worker.wait().signaled)
        // Still paused: a worker that should not wait exits 9, having claimed nothing.
        let paused = try rederive(command + ["--exit-when-paused"])
        XCTAssertEqual(paused.status, 9, paused.stderr)
        XCTAssertEqual(try cluster.count("SELECT count(*) FROM derive_range WHERE state = 'claimed'", url), 0)

        XCTAssertEqual(try rederive(["resume", "--db", url]).status, 0)
        let rerun = try rederive(command + ["--exit-when-paused"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        XCTAssertFalse(
            rerun.stderr.contains("waiting for"), "no lease of the killed worker to wait on: \(rerun.stderr)")
        XCTAssertEqual(try cluster.count("SELECT count(*) FROM derive_range WHERE state <> 'done'", url), 0)
        XCTAssertEqual(try cluster.summariesDigest(url), try cluster.summariesDigest(reference))
        // The control survives nothing it should not: a finished run cannot be paused.
        let finished = try cluster.sql("SELECT max(id) FROM run", url: url)[0]
        let done = try rederive(["pause", "--db", url, "--run", finished])
        XCTAssertEqual(done.status, 1, done.stderr)
        XCTAssertTrue(done.stderr.contains("run \(finished) is finished (completed)"), done.stderr)
        let unknown = try rederive(["pause", "--db", url, "--run", "999"])
        XCTAssertEqual(unknown.status, 1, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("no run 999"), unknown.stderr)
    }

    func testAnImportUnderMaxRatePausedFromAnotherProcessExitsNineAndCarriesOn() throws {
        let source = try GeneratedCorpus.path(records: 600, seed: 33, coreModelBytes: 200)
        let reference = try cluster.newDatabase()
        XCTAssertEqual(try rederive(["import", source, "--db", reference, "-q"]).status, 0)
        let url = try cluster.newDatabase()
        let command = [
            "import", source, "--db", url, "--batch-size", "25", "--workers", "1", "--max-rate", "200",
            "--exit-when-paused",
        ]
        let child = try CommandLineTool.Child(command, stderrPath: dir.file("import.err"))
        let deadline = Date().addingTimeInterval(60)
        // Batches recorded (the store's tables appear once the import has begun).
        let committed = "SELECT count(*) FROM run_batch"
        while (try? cluster.count(committed, url)) ?? 0 < 3, child.isRunning, Date() < deadline { usleep(20_000) }
        let pause = try rederive(["pause", "--db", url, "--reason", "replica lag"])
        XCTAssertEqual(pause.status, 0, pause.stderr)
        let (exit, _) = child.wait(timeout: 30)
        XCTAssertEqual(exit, ExitStatus.paused.rawValue, child.stderr)
        let stored = try cluster.count("SELECT count(*) FROM record", url)
        XCTAssertLessThan(stored, 600, "paused part way")
        // copy-store does not carry the control over: refused while it holds.
        let copy = try rederive(["copy-store", "--from", url, "--to", dir.file("copy.sqlite")])
        XCTAssertEqual(copy.status, 1, copy.stderr)
        XCTAssertTrue(copy.stderr.contains("does not carry the run control over"), copy.stderr)

        XCTAssertEqual(try rederive(["resume", "--db", url]).status, 0)
        let rerun = try rederive(command)
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        XCTAssertTrue(rerun.stderr.contains("continuing unfinished run"), rerun.stderr)
        XCTAssertEqual(try cluster.summariesDigest(url), try cluster.summariesDigest(reference))
        let runs = try cluster.sql("SELECT id FROM run WHERE command = 'import' ORDER BY id", url: url)
        XCTAssertEqual(runs.count, 2, "the paused run and the one that carried it on")
        XCTAssertEqual(
            try cluster.count("SELECT sum(records) FROM run_batch WHERE run_id = \(runs[1])", url), 600,
            "the rerun reads the file again (records stored are left as they are)")
        XCTAssertGreaterThan(
            try cluster.count("SELECT count(*) FROM run_batch WHERE wait_reason = 'max-rate'", url), 10,
            "the rate held both runs back")
    }
}
