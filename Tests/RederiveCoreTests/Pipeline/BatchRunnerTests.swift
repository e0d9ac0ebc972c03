import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite

/// The lifecycle rules every job shares, through the one driver.
final class BatchRunnerTests: XCTestCase {
    func testAReportThatCannotBeWrittenRecordsTheRunAsFailed() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("rooms.sqlite")
        let store = try Store(path: db)
        defer { store.close() }
        let aFile = dir.file("plain-file")
        try "x".write(toFile: aFile, atomically: true, encoding: .utf8)
        let files = try ExportFiles.resolve([RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path])
        let config = ImportConfiguration(files: files, reportPath: aFile + "/issues.jsonl", showProgress: false)
        XCTAssertThrowsError(try ImportJob.run(config, store: store)) { error in
            XCTAssertEqual((error as? RederiveError)?.exitStatus, 2)
        }
        let run = try XCTUnwrap(StoreInspection.run(db))
        XCTAssertEqual(
            run["status"] as String, RunStatus.failed.rawValue, "not left `running` for the next run to continue")
        XCTAssertEqual(run["exit_status"] as Int, 2)
        // The next run starts afresh instead of "continuing" it.
        let next = try ImportJob.run(ImportConfiguration(files: files, showProgress: false), store: store)
        XCTAssertNil(next.resumedFrom)
    }
}
