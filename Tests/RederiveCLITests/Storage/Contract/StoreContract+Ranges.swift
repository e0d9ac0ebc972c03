import Foundation
import XCTest

@testable import RederiveCore

extension StoreContract {
    /// Runs `scenario` on a new store of every engine whose `StoreEngine` declares
    /// `capability`; fails when no engine does (the scenario would test nothing).
    static func onEveryEngine(
        with capability: KeyPath<StoreEngine.Capabilities, Bool>, file: StaticString = #filePath, line: UInt = #line,
        _ scenario: (StoreContract) throws -> Void
    ) throws {
        var ran = 0
        try onEveryEngine(file: file, line: line) { contract in
            guard RecordStores.engine(reading: contract.location)?.capabilities[keyPath: capability] == true else {
                return
            }
            ran += 1
            try scenario(contract)
        }
        XCTAssertGreaterThan(ran, 0, "no engine declares \(capability)", file: file, line: line)
    }

    /// Shared range claims (`DeriveRangeClaims`): a run's selection is cut into ranges once;
    /// a claim cut down keeps its first keys and opens the rest (two halves, never the range
    /// and a sliver; holding more than twice the size asked, exactly that size); a range given
    /// back, or committed, is no longer the claim's: it is not cut and a second commit, or one
    /// of the claim as it was before the cut, writes nothing.
    func contractRangeClaims() throws {
        let store = try open()
        try importBatch(store, Self.fixtureItems())
        let claims = try XCTUnwrap(store.rangeClaims, "the engine declares shared range claims")
        let deriver = SummaryDeriver()
        let run = try store.beginRun(
            RunStartRequest(
                command: "derive", arguments: "derive --all", resumeKey: "ranges", deriver: deriver,
                continuation: .asSameRunWhereShared))
        let keys = try seqs(store)
        XCTAssertGreaterThan(keys.count, 10)
        let prepared = try claims.prepareRanges(
            runID: run.runID, selection: DeriveSelection(all: true), deriver: deriver, allowDowngrade: false,
            upTo: try store.maxSeq(), rangeSize: 1_000)
        XCTAssertEqual(prepared.ranges, 1)
        guard case .claimed(let whole) = try claims.claimNext(runID: run.runID) else { return XCTFail("claimed") }
        XCTAssertEqual(whole.upTo, keys.last)
        // Asked for one record fewer than it holds: the range stays whole, never a sliver; asked for
        // 70 % of it, two equal halves (the pieces closest to the size asked), never 70 % and a sliver.
        XCTAssertEqual(try claims.cut(whole, toRecords: keys.count - 1), whole)
        let cut = try claims.cut(whole, toRecords: keys.count * 7 / 10)
        XCTAssertEqual(cut.rangeID, whole.rangeID)
        XCTAssertEqual(cut.attempt, whole.attempt)
        XCTAssertEqual(cut.after, whole.after)
        XCTAssertEqual(cut.upTo, keys[(keys.count + 1) / 2 - 1], "the claim keeps the first half")
        guard case .claimed(let rest) = try claims.claimNext(runID: run.runID) else {
            return XCTFail("the rest is open")
        }
        XCTAssertEqual(rest.after, cut.upTo)
        XCTAssertEqual(rest.upTo, whole.upTo)
        XCTAssertEqual(try claims.cut(cut, toRecords: 100).upTo, cut.upTo, "a range that holds no more stays")
        // Given back (and so no longer this claim's), a range is not cut.
        try claims.giveBack([rest])
        XCTAssertEqual(try claims.cut(rest, toRecords: 2), rest)
        // The whole claim's commit is refused (its row now ends earlier); the cut one's is
        // written once: the same claim again no longer holds the range (it is done).
        let id = try store.fetchRooms(
            DeriveSelection(all: true), deriver: deriver, allowDowngrade: false, after: cut.after, upTo: cut.upTo,
            limit: 1)[0].id
        func failure(_ message: String) -> DeriveWrite {
            .failure(
                RecordIssue(file: "a.jsonl", line: 1, id: id, stage: .derive, code: "invalid_json", message: message))
        }
        XCTAssertNil(
            try claims.commitRange(
                whole, writes: [failure("whole")], runID: run.runID, deriver: deriver, counts: RunStatistics()))
        XCTAssertNotNil(
            try claims.commitRange(
                cut, writes: [failure("first")], runID: run.runID, deriver: deriver, counts: RunStatistics()))
        XCTAssertNil(
            try claims.commitRange(
                cut, writes: [failure("second")], runID: run.runID, deriver: deriver, counts: RunStatistics()))
        XCTAssertEqual(try store.openFailures(matching: FailureFilter(stage: "derive")).map(\.message), ["first"])
        // The rest, given back, is claimed again and finishes the run.
        guard case .claimed(let again) = try claims.claimNext(runID: run.runID) else {
            return XCTFail("the given-back range is open")
        }
        XCTAssertEqual([again.after, again.upTo], [rest.after, rest.upTo])
        // Holding more than twice what is asked, it keeps exactly that (not the first of equal
        // pieces: one more), and the rest, more than asked, is cut again when it is claimed.
        let first = try XCTUnwrap(keys.firstIndex { $0 > again.after })
        let asked = (keys.count - first - 1) / 2
        XCTAssertGreaterThanOrEqual(asked, 3, "equal pieces would keep one more")
        let piece = try claims.cut(again, toRecords: asked)
        XCTAssertEqual(piece.upTo, keys[first + asked - 1])
        XCTAssertNotNil(
            try claims.commitRange(piece, writes: [], runID: run.runID, deriver: deriver, counts: RunStatistics()))
        guard case .claimed(let last) = try claims.claimNext(runID: run.runID) else { return XCTFail("the rest") }
        XCTAssertEqual([last.after, last.upTo], [piece.upTo, rest.upTo])
        XCTAssertNotNil(
            try claims.commitRange(last, writes: [], runID: run.runID, deriver: deriver, counts: RunStatistics()))
        XCTAssertEqual(try claims.claimNext(runID: run.runID), .finished)
        XCTAssertEqual(try claims.failedRanges(runID: run.runID), [])
    }
}
