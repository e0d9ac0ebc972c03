import Foundation
import XCTest

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveEngineTestSupport

/// `LeaseKeeper` against a real server: a held range stays claimed past its lease while the
/// keeper renews it, and is claimed again by another process once the keeper lets it go
/// (released, stopped, or held for its maximum number of leases).
final class LeaseKeeperTests: PostgresTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try importFixtures()
    }

    /// Two stores, as two processes would have, sharing one run cut into ranges of 8.
    private func claimedRange(lease: Double) throws -> (PostgresStore, PostgresStore, RangeClaim, Int64) {
        let first = try PostgresStore(url: url, leaseSeconds: lease)
        let second = try PostgresStore(url: url, leaseSeconds: lease)
        let deriver = SummaryDeriver()
        let run = try first.beginRun(
            RunStartRequest(
                command: "derive", pipeline: nil, arguments: "derive --all", resumeKey: "lease-test", deriver: deriver,
                allowDowngrade: false))
        _ = try first.prepareRanges(
            runID: run.runID, selection: DeriveSelection(all: true), deriver: deriver, allowDowngrade: false,
            upTo: try first.maxSeq(), rangeSize: 8)
        guard case .claimed(let claim) = try first.claimNext(runID: run.runID) else {
            throw PostgresCluster.Failure(description: "no range to claim")
        }
        return (first, second, claim, run.runID)
    }

    /// Claims with `store` until the range `id` comes back (or `seconds` pass); returns its attempt.
    private func reclaim(_ id: Int64, by store: PostgresStore, run: Int64, within seconds: Double) throws -> Int? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            switch try store.claimNext(runID: run) {
            case .claimed(let claim) where claim.rangeID == id: return claim.attempt
            case .finished: return nil
            default: usleep(50_000)
            }
        }
        return nil
    }

    func testAClaimerLeftWithOnlyItsOwnRangesIsToldSoAndWokenWhenOneIsLetGo() throws {
        let (first, second, claim, run) = try claimedRange(lease: 30)
        defer { (first.close(), second.close()) }
        let keeper = LeaseKeeper(first)
        defer { keeper.stop() }
        keeper.hold(claim)
        while case .claimed(let more) = try first.claimNext(runID: run) { keeper.hold(more) }
        // Every range is claimed by this process: it waits on nobody else's ranges.
        guard case .wait(let own) = try first.claimNext(runID: run) else { return XCTFail("expected a wait") }
        XCTAssertEqual(own.held, [], "this process's own ranges are not others' held ranges")
        XCTAssertEqual(keeper.heldClaims.count, 4)
        let count = keeper.releases
        XCTAssertFalse(keeper.waitForRelease(since: count, timeout: 0.05), "nothing let go yet")
        let other = Thread { keeper.release(claim) }
        other.start()
        XCTAssertTrue(keeper.waitForRelease(since: count, timeout: 60), "woken by the release")
        XCTAssertEqual(keeper.releases, count + 1)
        XCTAssertTrue(keeper.waitForRelease(since: count, timeout: 60), "a release already seen returns at once")
    }

    func testRenewedRangeIsNotTakenOverUntilReleased() throws {
        let (first, second, claim, run) = try claimedRange(lease: 0.5)
        defer { (first.close(), second.close()) }
        let keeper = LeaseKeeper(first)
        keeper.hold(claim)
        // Four leases later, the other process has taken every other range but not this one.
        XCTAssertNil(try reclaim(claim.rangeID, by: second, run: run, within: 2.0))
        XCTAssertEqual(
            try cluster.sql("SELECT state, attempt FROM derive_range WHERE id = \(claim.rangeID)", url: url),
            ["claimed|1"])
        keeper.release(claim)
        keeper.stop()
        XCTAssertEqual(try reclaim(claim.rangeID, by: second, run: run, within: 5), 2, "taken over once let go")
    }

    func testRangeHeldTooLongIsLetGo() throws {
        let (first, second, claim, run) = try claimedRange(lease: 0.4)
        defer { (first.close(), second.close()) }
        let keeper = LeaseKeeper(first, maxLeases: 3)
        defer { keeper.stop() }
        keeper.hold(claim)
        // Renewed for three leases (1.2 s), then left to run out: another process takes it.
        let started = Date()
        XCTAssertEqual(try reclaim(claim.rangeID, by: second, run: run, within: 10), 2)
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 1.0, "held while renewed")
    }
}
