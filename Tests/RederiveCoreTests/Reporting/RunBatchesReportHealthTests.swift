import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport

/// `status --run N` with the health each batch kept (issue 34 #5): the text's table, the JSON's
/// `claimHealth` / `commitHealth`, and the HTML page charting each signal with its limits,
/// self-contained and with hostile text escaped.
final class RunBatchesReportHealthTests: XCTestCase {
    private func health(_ lag: Double, grade: String, limits: Bool) -> BatchHealth {
        BatchHealth(
            grade: grade, age: 0.5,
            signals: [
                .init(
                    signal: "standby_lag_bytes", value: lag, grade: grade, yellow: limits ? 32_000_000 : nil,
                    red: limits ? 64_000_000 : nil),
                .init(signal: "dead_rows", value: nil, unmeasurable: "<no> pg_monitor"),
            ])
    }

    private func report() -> RunBatchesReport {
        let lags: [(Double, String)] = [(1_000_000, "green"), (40_000_000, "yellow"), (90_000_000, "red")]
        let batches = lags.enumerated().map { i, lag in
            BatchRecord(
                runID: 4, worker: "h:<1>", records: 100 + i, readSeconds: 0.1, waitedSeconds: i == 2 ? 3 : 0,
                waitReason: i == 2 ? "health: standby replay lag 90.0 MB >= red 64.0 MB <script>" : nil,
                finishedAt: "2026-11-27T10:00:0\(i)Z", claimHealth: health(lag.0, grade: lag.1, limits: true),
                commitHealth: health(lag.0 + 500_000, grade: lag.1, limits: false))
        }
        return RunBatchesReport(runID: 4, status: "completed", batches: batches, control: RunControlState())
    }

    func testTheTextShowsEachBatchsSignalsAtClaimAndCommit() {
        let text = report().text()
        XCTAssertTrue(text.contains("health         per batch at its claim and its commit"), text)
        XCTAssertTrue(text.contains("limits         standby_lag_bytes 32.0M/64.0M"), text)
        let lines = text.split(separator: "\n").map(String.init)
        let header = lines.first { $0.contains("age_s") && $0.contains("standby_lag_bytes") }
        XCTAssertNotNil(header, text)
        XCTAssertTrue(header?.contains("dead_rows") ?? false)
        XCTAssertTrue(lines.contains { $0.contains("3  claim") && $0.contains("90.0M!!") && $0.contains("n/a") }, text)
        XCTAssertTrue(lines.contains { $0.contains("2  commit") && $0.contains("40.5M!") }, text)
        XCTAssertTrue(lines.contains { $0.contains("1  claim") && $0.contains("1.0M ") || $0.hasSuffix("1.0M") })
        let none = RunBatchesReport(
            runID: 1, status: "completed", batches: [BatchRecord(runID: 1, worker: "w", records: 1)],
            control: RunControlState())
        XCTAssertFalse(none.text().contains("health "), "a run that kept no health shows no table")
    }

    func testTheJSONCarriesTheHealthOfEachBatch() throws {
        let json = report().json()
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let batches = try XCTUnwrap(object["batches"] as? [[String: Any]])
        XCTAssertEqual(batches.count, 3)
        let claim = try XCTUnwrap(batches[2]["claimHealth"] as? [String: Any])
        XCTAssertEqual(claim["grade"] as? String, "red")
        let signals = try XCTUnwrap(claim["signals"] as? [[String: Any]])
        XCTAssertEqual(signals[0]["signal"] as? String, "standby_lag_bytes")
        XCTAssertEqual(signals[0]["value"] as? Double, 90_000_000)
        XCTAssertEqual(signals[0]["red"] as? Double, 64_000_000)
        XCTAssertEqual(signals[1]["unmeasurable"] as? String, "<no> pg_monitor")
        let commit = try XCTUnwrap(batches[2]["commitHealth"] as? [String: Any])
        XCTAssertNil((commit["signals"] as? [[String: Any]])?[0]["red"])
        let plain = RunBatchesReport(
            runID: 1, status: "completed", batches: [BatchRecord(runID: 1, worker: "w", records: 1)],
            control: RunControlState()
        ).json()
        XCTAssertTrue(plain.contains("\"claimHealth\":null,\"commitHealth\":null"), plain)
    }

    func testTheRunsPageChartsEachSignalWithItsLimitsSelfContainedAndEscaped() throws {
        let page = report().html()
        let ids = try XHTML.parse(page)
        for id in ["chart-batch-size", "chart-batch-time", "chart-health-0"] { XCTAssertTrue(ids.contains(id), id) }
        XCTAssertFalse(ids.contains("chart-health-1"), "an unmeasured signal has no chart")
        XCTAssertTrue(page.contains("class=\"limit-yellow\""), "the yellow limit is drawn")
        XCTAssertTrue(page.contains("class=\"limit-red\""), "the red limit is drawn")
        XCTAssertEqual(page.components(separatedBy: "<polyline class=\"line").count - 1, 2, "claim and commit")
        XCTAssertTrue(page.contains("standby_lag_bytes per batch"))
        XCTAssertFalse(page.contains("<script"), "hostile text is escaped")
        XCTAssertTrue(page.contains("&lt;script&gt;") && page.contains("h:&lt;1&gt;"))
        for external in ["src=", "href=", "@import", "url("] { XCTAssertFalse(page.contains(external), external) }
        // A long run's page charts its latest 200 batches (and lists them all).
        var long = report()
        long.batches = (1...250).map {
            BatchRecord(runID: 4, worker: "w", records: $0, claimHealth: health(1, grade: "green", limits: true))
        }
        let longPage = long.html()
        XCTAssertTrue(longPage.contains("The latest 200 batches charted."))
        XCTAssertEqual(longPage.components(separatedBy: "<circle").count - 1, 200, "one dot per charted claim")
        XCTAssertNoThrow(try XHTML.parse(longPage))
        // The status page's section of the latest run charts the same.
        var status = StoreStatus(
            path: "/x.sqlite", totalRecords: 0, recordsByVersion: [], stale: .init(), failures: [], recentRuns: [],
            totalRuns: 0, currentVersion: 1, currentFingerprint: "v1-0")
        (status.latestBatchRun, status.latestBatches) = (4, report().batches)
        XCTAssertTrue(try XHTML.parse(status.html()).contains("chart-health-0"))
    }
}
