import Foundation
import XCTest
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Issue 24 item 8: a derive that waits for the ranges a killed process still holds says what
/// it waits for (ranges, holder, until when) instead of sitting silent until the lease ends.
final class PostgresLeaseWaitTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        // Long enough that the rerun finishes the open ranges before the dead process's lease ends.
        setenv("REDERIVE_LEASE_SECONDS", "8", 1)
    }

    override func tearDown() {
        unsetenv("REDERIVE_LEASE_SECONDS")
        dir = nil
    }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    func testTheRerunNamesTheDeadProcesssRanges() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.newDatabase()
        let corpus = try GeneratedCorpus.path(records: 1500, seed: 5, coreModelBytes: 200)
        XCTAssertEqual(try rederive(["import", corpus, "--db", url, "-q"]).status, 0)
        let derive = ["derive", "--db", url, "--all", "--rewrite", "--batch-size", "20", "--workers", "1"]
        let child = try CommandLineTool.Child(derive, stderrPath: dir.file("killed.err"))
        let deadline = Date().addingTimeInterval(120)
        var done = 0
        while child.isRunning && Date() < deadline && done < 5 {
            done =
                Int(
                    (try? cluster.sql("SELECT count(*) FROM derive_range WHERE state = 'done'", url: url))?.first
                        ?? "0") ?? 0
            usleep(2_000)
        }
        child.signal(SIGKILL)
        let (_, signaled) = child.wait()
        XCTAssertTrue(signaled, "killed, not finished")
        let held = try cluster.sql(
            "SELECT claimed_by FROM derive_range WHERE state = 'claimed' ORDER BY seq_from", url: url)
        XCTAssertFalse(held.isEmpty, "the killed process held a range")

        let rerun = try rederive(derive)
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let line = rerun.stderr.split(separator: "\n").first { $0.contains("waiting for") }
        XCTAssertNotNil(line, rerun.stderr)
        XCTAssertTrue(line?.contains("held by \(held[0]) until 20") ?? false, rerun.stderr)
        XCTAssertTrue(line?.contains("info") ?? false, rerun.stderr)
    }
}
