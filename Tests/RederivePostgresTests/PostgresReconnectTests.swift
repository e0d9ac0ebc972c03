import Foundation
import XCTest

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveEngineTestSupport

/// A store whose server connections were cut (a worker paused past its lease, a restart, a
/// pooler's cut) carries on (issue 17 item 4): its next commit makes a new connection, reads
/// whether the range is still its own, writes it when it is and drops it when another
/// process took it over, never a fatal error.
final class PostgresReconnectTests: PostgresTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try importFixtures()
    }

    private func claimed(_ store: PostgresStore) throws -> (RangeClaim, Int64) {
        let deriver = SummaryDeriver()
        let run = try store.beginRun(
            RunStartRequest(
                command: "derive", pipeline: nil, arguments: "derive --all", resumeKey: "reconnect-test",
                deriver: deriver,
                allowDowngrade: false))
        _ = try store.prepareRanges(
            runID: run.runID, selection: DeriveSelection(all: true), deriver: deriver, allowDowngrade: false,
            upTo: try store.maxSeq(), rangeSize: 8)
        guard case .claimed(let claim) = try store.claimNext(runID: run.runID) else {
            throw PostgresCluster.Failure(description: "no range to claim")
        }
        return (claim, run.runID)
    }

    /// Ends every other connection to the test's database, as the server does to a paused one.
    private func cutConnections() throws {
        try cluster.sql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                + "AND pid <> pg_backend_pid()", url: url)
    }

    func testACommitWhoseConnectionWasCutIsWrittenOnANewOne() throws {
        let store = try PostgresStore(url: url, leaseSeconds: 60)
        defer { store.close() }
        let (claim, run) = try claimed(store)
        try cutConnections()
        let added = try store.commitRange(
            claim, writes: [], runID: run, deriver: SummaryDeriver(), counts: RunStatistics())
        XCTAssertEqual(added, 0, "written, not lost")
        XCTAssertEqual(
            try cluster.sql("SELECT state, attempt FROM derive_range WHERE id = \(claim.rangeID)", url: url),
            ["done|1"])
        // And the reader's connection too: the next claim goes on.
        try cutConnections()
        guard case .claimed = try store.claimNext(runID: run) else { return XCTFail("no next claim") }
    }

    func testACommitOfARangeTakenOverMeanwhileIsDroppedAfterReconnecting() throws {
        let first = try PostgresStore(url: url, leaseSeconds: 0.3)
        let second = try PostgresStore(url: url, leaseSeconds: 60)
        defer { (first.close(), second.close()) }
        let (claim, run) = try claimed(first)
        usleep(600_000)  // the lease runs out
        var taken: RangeClaim?
        while taken == nil, case .claimed(let next) = try second.claimNext(runID: run) {
            if next.rangeID == claim.rangeID { taken = next }
        }
        XCTAssertEqual(taken?.attempt, 2)
        try cutConnections()
        let lost = try first.commitRange(
            claim, writes: [], runID: run, deriver: SummaryDeriver(), counts: RunStatistics())
        XCTAssertNil(lost, "another process's range now: dropped")
        XCTAssertEqual(
            try cluster.sql("SELECT state, attempt FROM derive_range WHERE id = \(claim.rangeID)", url: url),
            ["claimed|2"])
    }
}
