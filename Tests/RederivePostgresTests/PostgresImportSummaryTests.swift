import Foundation
import XCTest

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// An import's summary writes (`PostgresStore.summaryWrite`): only a record that has a stored
/// summary sends the statement that keeps replaced summaries in the history; a new record's
/// summary is one upsert.
final class PostgresImportSummaryTests: XCTestCase {
    func testOnlyAStoredSummaryIsLookedForInTheHistoryStatement() throws {
        let cluster = try PostgresCluster.shared()
        let store = try PostgresStore(url: try cluster.newDatabase())
        defer { store.close() }
        let deriver = SummaryDeriver()
        let file = try XCTUnwrap(
            try ExportFiles.resolve([RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path]).first)
        let line = try XCTUnwrap(try StoreFixtures.lines(of: file).first)
        guard
            case .row(let row) = RecordProcessor(deriver: deriver).importItem(
                line: ExportLine(number: 1, bytes: line), file: file)
        else { return XCTFail("the fixture's first line is a good record") }
        func statements(_ stored: ImportPlanner.StoredState?) -> Int {
            store.summaryStatements(
                [PostgresStore.summaryWrite(seq: 1, row, stored: stored)], deriver: deriver, runID: 1, now: "now"
            ).count
        }
        func stored(summaryVersion: Int?) -> ImportPlanner.StoredState {
            ImportPlanner.StoredState(
                seq: 1, rawHash: row.rawHash, roomName: "", capturedAt: "", summaryVersion: summaryVersion,
                fingerprint: summaryVersion.map { _ in deriver.fingerprint })
        }
        XCTAssertEqual(statements(nil), 1, "a new record: the upsert alone")
        XCTAssertEqual(statements(stored(summaryVersion: nil)), 1, "stored, its derive failed: no summary to keep")
        XCTAssertEqual(statements(stored(summaryVersion: deriver.version)), 2, "the history first, then the upsert")
    }
}
