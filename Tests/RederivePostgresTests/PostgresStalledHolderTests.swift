import Foundation
import XCTest

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveEngineTestSupport

/// A worker stopped while its commit's pipeline was half sent keeps its transaction "active"
/// to the server, waiting for the rest: no timeout ends it, and its lock on the range row
/// (skipped by every claim) would keep the range from the others for as long as it stays
/// stopped. A claimer that finds such a range, its lease out for more than a lease, ends the
/// holder's transaction and claims the range again.
final class PostgresStalledHolderTests: PostgresTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try importFixtures()
    }

    func testAStalledHolderOfAnExpiredRangeIsEndedAndTheRangeClaimedAgain() throws {
        let store = try PostgresStore(url: url, leaseSeconds: 1)
        defer { store.close() }
        let deriver = SummaryDeriver()
        let run = try store.beginRun(
            RunStartRequest(
                command: "derive", pipeline: nil, arguments: "derive --all", resumeKey: "stalled", deriver: deriver,
                allowDowngrade: false))
        _ = try store.prepareRanges(
            runID: run.runID, selection: DeriveSelection(all: true), deriver: deriver, allowDowngrade: false,
            upTo: try store.maxSeq(), rangeSize: 1_000)
        guard case .claimed(let first) = try store.claimNext(runID: run.runID) else {
            return XCTFail("the run's one range is claimed")
        }
        // The stalled worker's session: named after the holder, its transaction holding the row.
        let holder = try PostgresSession(
            conninfo: url, applicationName: PostgresStore.applicationName(worker: store.workerName))
        var again: RangeClaim?
        var waits = 0
        XCTAssertThrowsError(
            try holder.transaction { tx in
                try tx.run("SELECT id FROM derive_range WHERE id = $1 FOR UPDATE", .of(first.rangeID))
                let deadline = Date().addingTimeInterval(30)
                while again == nil, Date() < deadline {
                    switch try store.claimNext(runID: run.runID) {
                    case .claimed(let claim): again = claim
                    case .wait:
                        waits += 1
                        Thread.sleep(forTimeInterval: 0.2)
                    case .finished: XCTFail("the held range is not done")
                    }
                }
                // The holder's transaction was ended with its connection.
                try tx.run("SELECT 1")
            }, "the holder's transaction is gone")
        XCTAssertGreaterThan(waits, 0, "the range was waited for while its lease ran")
        XCTAssertEqual(again?.rangeID, first.rangeID)
        XCTAssertEqual(again?.attempt, first.attempt + 1)
    }
}
