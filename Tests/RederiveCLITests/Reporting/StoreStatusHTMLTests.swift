import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `StoreStatus.html()` and `rederive status --html FILE`.
final class StoreStatusHTMLTests: XCTestCase {
    func testPageIsWellFormedWithEveryChart() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        try StoreFixtures.execute(store, "UPDATE summary SET summary_version = 0 WHERE record_seq % 3 = 0")
        _ = try DeriveJob.run(
            DeriveConfiguration(selection: DeriveSelection(ids: ["none"]), showProgress: false), store: store)
        let status = try store.status()
        let html = status.html()
        let ids = try XHTML.parse(html)
        for id in [
            "chart-versions", "chart-stale", "chart-failures", "chart-runs-records", "chart-runs-duration",
            "chart-runs-skipped",
        ] {
            XCTAssertTrue(ids.contains(id), "no \(id)")
        }
        XCTAssertTrue(html.contains("<td>v0</td>"), html)
        XCTAssertTrue(html.contains("<code>truncated_frame</code>"))
        XCTAssertFalse(html.contains("<script"))
        // One bar per run in the records chart (3 series, some zero): at least one titled bar per run.
        for run in status.recentRuns { XCTAssertTrue(html.contains("\(run.id) \(run.command)"), "run \(run.id)") }

        let empty = StoreStatus(
            path: "/x/<y>.sqlite", totalRecords: 0, recordsByVersion: [], stale: .init(), failures: [],
            recentRuns: [], totalRuns: 0, currentVersion: 1, currentFingerprint: "v1-0")
        XCTAssertNoThrow(try XHTML.parse(empty.html()))
        var batched = empty
        batched.latestBatchRun = 3
        batched.latestBatches = (1...300).map { BatchRecord(runID: 3, worker: "h:<1>", records: $0, readSeconds: 0.01) }
        let page = batched.html()
        XCTAssertTrue(page.contains("Batches of run 3") && page.contains("the latest 200 charted"), page)
        XCTAssertNoThrow(try XHTML.parse(page))
    }

    func testStatusCommandWritesTheHTMLFile() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        store.close()
        let page = dir.file("reports/status.html")
        let status = try CommandLineTool.run(
            ["status", "--db", dir.file("rooms.sqlite"), "--html", page, "--runs", "1"],
            stderrPath: dir.file("stderr"))
        let stderr = (try? String(contentsOfFile: dir.file("stderr"), encoding: .utf8)) ?? ""
        XCTAssertEqual(status, 0, stderr)
        XCTAssertTrue(stderr.contains(page), "logs the path: \(stderr)")
        let ids = try XHTML.parse(try String(contentsOfFile: page, encoding: .utf8))
        XCTAssertTrue(ids.contains("chart-runs-records"))
        XCTAssertTrue(ids.contains("chart-batch-size"), "the latest run's batches are charted")
        XCTAssertTrue(ids.contains("chart-batch-time"))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.file("reports")), ["status.html"],
            "no temporary file left")
    }
}
