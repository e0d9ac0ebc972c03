import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

final class MetricsFileTests: XCTestCase {
    private func report() -> RunReport {
        var s = RunStatistics()
        s.recordsRead = 10
        s.recordsDone = 7
        s.recordsSkipped = 3
        s.seconds = 2
        return RunReport(
            runID: 5, command: "import", status: .completed, exitStatus: .skippedRecords, statistics: s,
            counts: [("imported", 7)], issuesByCode: ["invalid_json": 2, "wrong_type": 1], newFailures: 3,
            summaryVersion: 1, fingerprint: "v1-x", resumedFrom: nil, stopReason: nil)
    }

    func testPrometheusTextFormat() {
        let text = MetricsFile.text(
            [report()], pipeline: "nightly", finishedAt: Date(timeIntervalSince1970: 1_700_000_000))
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertTrue(
            lines.contains(
                "rederive_records{pipeline=\"nightly\",stage=\"import\",command=\"import\",outcome=\"read\"} 10"))
        XCTAssertTrue(
            lines.contains(
                "rederive_records{pipeline=\"nightly\",stage=\"import\",command=\"import\",outcome=\"imported\"} 7"))
        XCTAssertTrue(
            lines.contains(
                "rederive_issues{pipeline=\"nightly\",stage=\"import\",command=\"import\",code=\"invalid_json\"} 2"))
        XCTAssertTrue(
            lines.contains("rederive_run_exit_status{pipeline=\"nightly\",stage=\"import\",command=\"import\"} 3"))
        XCTAssertTrue(
            lines.contains(
                "rederive_run_records_per_second{pipeline=\"nightly\",stage=\"import\",command=\"import\"} 5"))
        XCTAssertTrue(lines.contains("rederive_last_run_timestamp_seconds{pipeline=\"nightly\"} 1700000000"))
        // Every sample line belongs to a family announced by HELP and TYPE before it.
        var declared = Set<String>()
        for line in lines {
            if line.hasPrefix("# TYPE ") {
                declared.insert(String(line.split(separator: " ")[2]))
            } else if !line.hasPrefix("#") {
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                XCTAssertTrue(declared.contains(name), "undeclared metric \(name)")
                XCTAssertNotNil(Double(line.split(separator: " ").last!), "value of \(line)")
            }
        }
        XCTAssertTrue(text.hasSuffix("\n"))
    }

    func testWriteIsAtomicAndReplaces() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("sub/run.prom").path
        try MetricsFile.write([report()], pipeline: nil, to: path)
        try MetricsFile.write([report()], pipeline: "again", to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains("pipeline=\"again\""))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".partial"))
    }

    func testUnwritablePathIsAnIOError() {
        XCTAssertThrowsError(try MetricsFile.write([report()], pipeline: nil, to: "/proc/nope/run.prom")) { error in
            XCTAssertEqual((error as? RederiveError)?.exitStatus, .failure)
        }
    }

    func testStageLabelsStoreFiguresAndWholeNumbers() {
        var failed = report()
        failed.command = "derive"
        failed.statistics.recordsNewer = 2
        let text = MetricsFile.text(
            [report(), failed], pipeline: "p", labels: ["import", "derive-2"],
            store: .init(staleRecords: 4, openFailures: 13, newerSummaries: 2),
            lastSuccess: Date(timeIntervalSince1970: 1_600_000_000))
        let lines = text.split(separator: "\n").map(String.init)
        let newer = "rederive_records{pipeline=\"p\",stage=\"derive-2\",command=\"derive\",outcome=\"newer\"} 2"
        XCTAssertTrue(lines.contains(newer), text)
        XCTAssertTrue(lines.contains("rederive_store_stale_records{pipeline=\"p\"} 4"), text)
        XCTAssertTrue(lines.contains("rederive_store_open_failures{pipeline=\"p\"} 13"), text)
        XCTAssertTrue(lines.contains("rederive_store_newer_summaries{pipeline=\"p\"} 2"), text)
        XCTAssertTrue(lines.contains("rederive_last_success_timestamp_seconds{pipeline=\"p\"} 1600000000"), text)
        let peak = try? XCTUnwrap(lines.first { $0.hasPrefix("rederive_peak_resident_bytes") })
        XCTAssertNotNil(peak.flatMap { Int64($0.split(separator: " ").last!) }, "whole number: \(peak ?? "")")
    }

    func testBatchesAndTheControlsState() {
        var batched = report()
        batched.batches = BatchTotals.of([
            BatchRecord(runID: 1, worker: "h:1", records: 10, readSeconds: 0.5, commitSeconds: 0.25),
            BatchRecord(runID: 1, worker: "h:1", records: 5, waitedSeconds: 2, waitReason: "paused"),
        ])
        var store = MetricsFile.StoreFigures(staleRecords: 0, openFailures: 0, newerSummaries: 0)
        store.control = RunControlState(
            pausedSince: RunControlState.now(), pausedBy: "ops@h", reason: "peak \"traffic\"", maxRate: 250)
        let text = MetricsFile.text([batched], pipeline: "p", store: store)
        let lines = text.split(separator: "\n").map(String.init)
        let labels = "pipeline=\"p\",stage=\"import\",command=\"import\""
        XCTAssertTrue(lines.contains("rederive_batches{\(labels)} 2"), text)
        XCTAssertTrue(lines.contains("rederive_batch_seconds{\(labels),phase=\"read\"} 0.5"), text)
        XCTAssertTrue(lines.contains("rederive_batch_seconds{\(labels),phase=\"waited\"} 2"), text)
        XCTAssertTrue(lines.contains("rederive_paused{pipeline=\"p\",reason=\"peak \\\"traffic\\\"\"} 1"), text)
        XCTAssertTrue(lines.contains("rederive_max_rate{pipeline=\"p\"} 250"), text)
        XCTAssertFalse(MetricsFile.text([report()], pipeline: "p").contains("rederive_batches"), "none recorded")
    }

    /// Issue 34: the health throttle's state (grade, what it waits for and why, seconds waited
    /// for health) and each signal's last value; nothing when the run watched no health.
    func testTheHealthThrottlesStateAndEachSignalsLastValue() {
        var watched = report()
        watched.throttle = ThrottleFigures(
            mode: "observe", grade: "red", waiting: true, signal: "standby_lag_bytes",
            reason: "standby replay lag 90.0 MB >= red \"64.0 MB\"", healthWaitedSeconds: 12.3456,
            lastReading: BatchHealth(
                grade: "red", age: 0,
                signals: [
                    .init(signal: "standby_lag_bytes", value: 90_000_000, grade: "red"),
                    .init(signal: "active_sessions_share", value: 0.25, grade: "green"),
                    .init(signal: "dead_rows", value: nil, unmeasurable: "needs pg_monitor"),
                ]))
        let text = MetricsFile.text([watched], pipeline: "p")
        let lines = text.split(separator: "\n").map(String.init)
        let labels = "pipeline=\"p\",stage=\"import\",command=\"import\""
        XCTAssertTrue(lines.contains("rederive_health_grade{\(labels),mode=\"observe\"} 2"), text)
        XCTAssertTrue(
            lines.contains(
                "rederive_health_waiting{\(labels),signal=\"standby_lag_bytes\","
                    + "reason=\"standby replay lag 90.0 MB >= red \\\"64.0 MB\\\"\"} 1"), text)
        XCTAssertTrue(lines.contains("rederive_health_wait_seconds{\(labels)} 12.346"), text)
        XCTAssertTrue(
            lines.contains("rederive_health_signal_value{\(labels),signal=\"standby_lag_bytes\"} 90000000"), text)
        XCTAssertTrue(
            lines.contains("rederive_health_signal_value{\(labels),signal=\"active_sessions_share\"} 0.25"), text)
        XCTAssertFalse(text.contains("dead_rows"), "an unmeasurable signal has no value")
        XCTAssertEqual(PromLint.problems(text), [])
        watched.throttle?.waiting = false
        watched.throttle?.signal = nil
        watched.throttle?.reason = nil
        XCTAssertTrue(
            MetricsFile.text([watched], pipeline: "p").contains(
                "rederive_health_waiting{\(labels),signal=\"\",reason=\"\"} 0"))
        XCTAssertFalse(MetricsFile.text([report()], pipeline: "p").contains("rederive_health"), "none watched")
    }

    func testLastSuccessIsKeptWhenARunFails() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("run.prom")
        let success = Date(timeIntervalSince1970: 1_700_000_000)
        try MetricsFile.write([report()], pipeline: "p", to: path, finishedAt: success)
        var failed = report()
        failed.exitStatus = .errorBudget
        try MetricsFile.write([failed], pipeline: "p", to: path, finishedAt: success.addingTimeInterval(3600))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains("rederive_last_success_timestamp_seconds{pipeline=\"p\"} 1700000000"), text)
        XCTAssertTrue(text.contains("rederive_last_run_timestamp_seconds{pipeline=\"p\"} 1700003600"), text)
        let exit = "rederive_run_exit_status{pipeline=\"p\",stage=\"import\",command=\"import\"} 4"
        XCTAssertTrue(text.contains(exit), text)
    }
}
