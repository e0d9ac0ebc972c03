import Foundation
import XCTest

@testable import RederiveCore
@testable import RederivePostgres

/// The cut itself: fenced by the claim's attempt, and nothing lost or held twice.
final class PostgresRangeCutTests: PostgresTestCase {
    func testACutKeepsTheFirstKeysAndOpensTheRestAndALostClaimCutsNothing() throws {
        try importFixtures()
        let store = try PostgresStore(url: url, leaseSeconds: 60)
        defer { store.close() }
        let deriver = SummaryDeriver()
        let run = try store.beginRun(
            RunStartRequest(
                command: "derive", pipeline: nil, arguments: "derive --all", resumeKey: "cut", deriver: deriver,
                allowDowngrade: false))
        _ = try store.prepareRanges(
            runID: run.runID, selection: DeriveSelection(all: true), deriver: deriver, allowDowngrade: false,
            upTo: try store.maxSeq(), rangeSize: 1_000)
        guard case .claimed(let whole) = try store.claimNext(runID: run.runID) else { return XCTFail("claimed") }
        let held = Int(try cluster.sql("SELECT count(*) FROM record", url: url).first ?? "") ?? 0
        XCTAssertGreaterThan(held, 10)
        // Asked for one record fewer than it holds: the range stays whole, never a sliver; asked for
        // 70 % of it, two equal halves (the pieces closest to the size asked), never 70 % and a sliver.
        XCTAssertEqual(try store.cut(whole, toRecords: held - 1), whole)
        let cut = try store.cut(whole, toRecords: held * 7 / 10)
        XCTAssertEqual(cut.rangeID, whole.rangeID)
        XCTAssertEqual(cut.attempt, whole.attempt)
        XCTAssertEqual(cut.after, whole.after)
        let half = try cluster.sql(
            "SELECT seq FROM record WHERE seq > \(whole.after) ORDER BY seq OFFSET \((held + 1) / 2 - 1) LIMIT 1",
            url: url)
        XCTAssertEqual(cut.upTo, Int64(half.first ?? ""), "the claim keeps the first half")
        guard case .claimed(let rest) = try store.claimNext(runID: run.runID) else {
            return XCTFail("the rest is open")
        }
        XCTAssertEqual(rest.after, cut.upTo)
        XCTAssertEqual(rest.upTo, whole.upTo)
        XCTAssertEqual(try store.cut(cut, toRecords: 100).upTo, cut.upTo, "a range that holds no more stays")
        // Given back (and so no longer this claim's), a range is not cut.
        try store.giveBack([rest])
        XCTAssertEqual(try store.cut(rest, toRecords: 2), rest)
        // The whole claim's commit is refused: the row now ends earlier than it did.
        XCTAssertNil(
            try store.commitRange(whole, writes: [], runID: run.runID, deriver: deriver, counts: RunStatistics()))
        XCTAssertNotNil(
            try store.commitRange(cut, writes: [], runID: run.runID, deriver: deriver, counts: RunStatistics()))
    }
}
