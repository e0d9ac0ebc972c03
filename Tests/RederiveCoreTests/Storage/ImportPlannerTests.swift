import XCTest

@testable import RederiveCore

/// `ImportPlanner` without a database: each decision and what it writes, and the progress
/// a batch records.
final class ImportPlannerTests: XCTestCase {
    private let deriver = SummaryDeriver()

    private func stored(
        version: Int? = SummaryDeriver.currentVersion, fingerprint: String? = nil
    )
        -> ImportPlanner.StoredState
    {
        ImportPlanner.StoredState(
            seq: 7, rawHash: "h", roomName: "Kitchen", capturedAt: "2026-01-01T00:00:00Z", summaryVersion: version,
            fingerprint: version == nil ? nil : fingerprint ?? deriver.fingerprint)
    }

    private func decide(
        rawHash: String = "h", roomName: String = "Kitchen", _ state: ImportPlanner.StoredState?,
        allowDowngrade: Bool = false
    ) -> ImportPlanner.Decision {
        ImportPlanner.decide(
            rawHash: rawHash, roomName: roomName, capturedAt: "2026-01-01T00:00:00Z", stored: state,
            deriver: deriver, allowDowngrade: allowDowngrade)
    }

    func testNewRecordWritesEverything() {
        XCTAssertEqual(decide(nil), .init(outcome: .inserted, writesRecord: true, writesRaw: true, writesSummary: true))
    }

    func testSameRecordWritesNothing() {
        let d = decide(stored())
        XCTAssertEqual(d, .init(outcome: .unchanged, writesRecord: false, writesRaw: false, writesSummary: false))
        XCTAssertTrue(d.clearsFailures)
    }

    func testNewMetadataIsWrittenAndCountsUpdated() {
        // Review #26: a renamed room was counted "unchanged" although its record was rewritten.
        XCTAssertEqual(
            decide(roomName: "Pantry", stored()),
            .init(outcome: .updated, writesRecord: true, writesRaw: false, writesSummary: false))
    }

    func testNewRawRoomIsAnUpdate() {
        XCTAssertEqual(
            decide(rawHash: "other", stored()),
            .init(outcome: .updated, writesRecord: true, writesRaw: true, writesSummary: true))
    }

    func testStaleOrMissingSummaryIsRederived() {
        let rederived = ImportPlanner.Decision(
            outcome: .rederived, writesRecord: false, writesRaw: false, writesSummary: true)
        XCTAssertEqual(decide(stored(fingerprint: "other")), rederived)
        XCTAssertEqual(decide(stored(version: 0)), rederived)
        XCTAssertEqual(decide(stored(version: nil)), rederived)
    }

    func testNewerSummaryIsLeftAloneUnlessDowngrading() {
        let newer = decide(rawHash: "other", stored(version: 99))
        XCTAssertEqual(newer, .init(outcome: .newer, writesRecord: false, writesRaw: false, writesSummary: false))
        XCTAssertFalse(newer.clearsFailures, "a record left alone keeps its ledger entries")
        XCTAssertEqual(decide(stored(version: 99), allowDowngrade: true).outcome, .rederived)
    }

    func testProgressAddsTheBatchToTheTotalsBefore() {
        var before = RunStatistics()
        (before.recordsRead, before.recordsDone, before.recordsUnchanged, before.recordsNewer) = (50, 10, 5, 1)
        var batch = ImportBatchCounts()
        for outcome in [ImportPlanner.Outcome.inserted, .inserted, .updated, .rederived, .unchanged, .newer] {
            batch.count(outcome)
        }
        XCTAssertEqual(ImportPlanner.Outcome.allCases.map { batch[$0] }, [2, 1, 1, 1, 1], "one count per outcome")
        XCTAssertEqual(batch.written, 4)
        let after = ImportPlanner.progress(before, adding: batch)
        XCTAssertEqual(after.recordsDone, 14)
        XCTAssertEqual(after.recordsUnchanged, 6)
        XCTAssertEqual(after.recordsNewer, 2)
        XCTAssertEqual(after.recordsRead, 50, "what the job read is its own figure")
    }
}
