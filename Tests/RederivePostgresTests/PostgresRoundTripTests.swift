import Foundation
import XCTest

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// What a claimed range costs in round trips to the server (counted by `PostgresSession`,
/// not timed): a claim, a read and a commit of two pipelined round trips, however many
/// records the range holds (a commit whose claim was lost writes nothing: the store
/// contract's range-claims scenario).
final class PostgresRoundTripTests: XCTestCase {
    private var cluster: PostgresCluster!
    private var url = ""

    override func setUpWithError() throws {
        cluster = try PostgresCluster.shared()
        url = try cluster.newDatabase()
        let dir = try TemporaryDirectory()
        let exports = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path
        XCTAssertEqual(
            try CommandLineTool.run(["import", exports, "--db", url, "--quiet"], stderrPath: dir.file("import.err")), 0)
    }

    private func issue(_ id: String, _ message: String) -> RecordIssue {
        RecordIssue(file: "a.jsonl", line: 1, id: id, stage: .derive, code: "invalid_json", message: message)
    }

    /// Claims, reads and commits every range of a run cut into ranges of `rangeSize`; returns
    /// the most round trips one range took, and how many ranges there were.
    private func roundTripsPerRange(rangeSize: Int) throws -> (most: Int, ranges: Int) {
        let store = try PostgresStore(url: url, leaseSeconds: 30)
        defer { store.close() }
        let deriver = SummaryDeriver()
        let run = try store.beginRun(
            RunStartRequest(
                command: "derive", pipeline: nil, arguments: "derive --all", resumeKey: "trips-\(rangeSize)",
                deriver: deriver, allowDowngrade: false))
        _ = try store.prepareRanges(
            runID: run.runID, selection: DeriveSelection(all: true), deriver: deriver, allowDowngrade: false,
            upTo: try store.maxSeq(), rangeSize: rangeSize)
        var (most, ranges) = (0, 0)
        while true {
            let before = store.roundTrips
            guard case .claimed(let claim) = try store.claimNext(runID: run.runID) else { break }
            let rooms = try store.fetchRooms(
                DeriveSelection(all: true), deriver: deriver, allowDowngrade: false, after: claim.after,
                upTo: claim.upTo, limit: rangeSize)
            // Every record but the first goes through; the first fails (a ledger read and write).
            let writes: [DeriveWrite] =
                [.failure(issue(rooms[0].id, "range \(claim.rangeID)"))]
                + rooms.dropFirst().map { .unchanged(id: $0.id) }
            var counts = RunStatistics()
            counts.recordsRead = rooms.count
            XCTAssertNotNil(
                try store.commitRange(claim, writes: writes, runID: run.runID, deriver: deriver, counts: counts))
            most = max(most, store.roundTrips - before)
            ranges += 1
        }
        return (most, ranges)
    }

    /// Every statement the store sends runs in a transaction that the server ends when it
    /// idles longer than a lease (a worker stopped mid-pipeline holds no range forever): a lone
    /// `run` on the reader (range claims) and on the writer carries the timeout, as
    /// transactions do.
    func testEveryStatementCarriesTheIdleInTransactionTimeout() throws {
        let store = try PostgresStore(url: url, leaseSeconds: 7)
        defer { store.close() }
        for session in [store.reader, store.writer] {
            let lone = try session.run("SHOW idle_in_transaction_session_timeout").rows[0].decode(String.self)
            XCTAssertEqual(lone, "7s")
            let inTransaction = try session.transaction { tx in
                try tx.run("SHOW idle_in_transaction_session_timeout").rows[0].decode(String.self)
            }
            XCTAssertEqual(inTransaction, "7s")
        }
    }

    func testARangeCostsTheSameFewRoundTripsWhateverItsSize() throws {
        let small = try roundTripsPerRange(rangeSize: 4)
        let large = try roundTripsPerRange(rangeSize: 16)
        XCTAssertEqual(small.ranges, 8)
        XCTAssertEqual(large.ranges, 2)
        // Claim 1, read 1, commit 2 (BEGIN + fence + ledger read; writes + COMMIT).
        XCTAssertEqual(small.most, 4)
        XCTAssertEqual(large.most, 4)
        XCTAssertEqual(
            try cluster.sql("SELECT count(*) FROM failure", url: url), ["2"], "the last run's 2 ranges' first records")
    }
}
