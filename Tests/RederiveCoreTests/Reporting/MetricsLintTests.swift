import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// The metrics file passes `promtool check metrics` (issue 36 #7): the rules of its lint
/// (Prometheus 2.42's promlint) that a gauge-only file can break are checked here on every
/// family the file can hold, and `promtool` itself runs on it when it is installed.
final class MetricsLintTests: XCTestCase {
    /// A file with every family: a pipeline of two stages, store figures and a last success.
    private func fullText() -> String {
        var s = RunStatistics()
        s.recordsRead = 10
        s.recordsDone = 7
        s.recordsSkipped = 3
        s.fileFaults = 1
        s.seconds = 2
        let report = RunReport(
            runID: 5, command: "import", status: .completed, exitStatus: .skippedRecords, statistics: s,
            counts: [("imported", 7)], issuesByCode: ["invalid_json": 2], newFailures: 3,
            summaryVersion: 1, fingerprint: "v1-x", resumedFrom: nil, stopReason: nil)
        var derive = report
        derive.command = "derive"
        derive.batches = BatchTotals.of([BatchRecord(runID: 5, worker: "h:1", records: 10, readSeconds: 0.5)])
        derive.throttle = ThrottleFigures(
            mode: "on", grade: "yellow", waiting: false, signal: "dead_rows", reason: "dead rows on our tables",
            healthWaitedSeconds: 1.5,
            lastReading: BatchHealth(grade: "yellow", age: 0, signals: [.init(signal: "dead_rows", value: 6e6)]))
        return MetricsFile.text(
            [report, derive], pipeline: "nightly", labels: ["import", "derive"],
            store: .init(
                staleRecords: 1, openFailures: 20, newerSummaries: 0, unacknowledgedFailures: 0,
                control: RunControlState(pausedSince: "2026-01-01T00:00:00Z", pausedBy: "ops", maxRate: 10)),
            lastSuccess: Date(timeIntervalSince1970: 1_700_000_000))
    }

    /// Every family the file can hold is named in docs/pipelines.md's list of metrics, and
    /// every `rederive_…` name the list gives is one the file writes.
    func testEveryFamilyIsDocumentedAndEveryDocumentedOneIsWritten() throws {
        let families = Set(
            fullText().split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map {
                String($0.split(separator: " ")[2])
            })
        XCTAssertGreaterThan(families.count, 20)
        let docs = try String(
            contentsOf: RoomFixtures.repoRoot.appendingPathComponent("docs/pipelines.md"), encoding: .utf8)
        let section = try XCTUnwrap(docs.components(separatedBy: "`--metrics-file PATH`").dropFirst().first)
        let named = Set(
            section.components(separatedBy: "`").filter { $0.hasPrefix("rederive_") }.map {
                String($0.prefix { $0.isLetter || $0 == "_" })
            })
        XCTAssertEqual(families.subtracting(named).sorted(), [], "written but not documented")
        XCTAssertEqual(named.subtracting(families).sorted(), [], "documented but never written")
    }

    func testTheMetricsFilePassesPromlintsRules() {
        XCTAssertEqual(PromLint.problems(fullText()), [])
    }

    /// The rules catch what promtool 2.42 reported on the file before (`rederive_summary_version`).
    func testTheRulesCatchATypeNameInAMetricName() {
        let old =
            "# HELP rederive_summary_version v\n# TYPE rederive_summary_version gauge\n"
            + "rederive_summary_version{pipeline=\"p\"} 1\n"
        XCTAssertEqual(
            PromLint.problems(old), ["rederive_summary_version: metric name should not include type 'summary'"])
        let counter = "# HELP rederive_x_total x\n# TYPE rederive_x_total gauge\nrederive_x_total 1\n"
        XCTAssertEqual(
            PromLint.problems(counter), ["rederive_x_total: non-counter metrics should not have \"_total\" suffix"])
    }

    /// promtool itself, when installed (Debian's `prometheus`; not in `make deps`: 96 MB).
    func testPromtoolChecksTheFileWhenInstalled() throws {
        let promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let promtool else { throw XCTSkip("promtool is not installed; the lint rules above stand in for it") }
        let dir = try TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: promtool)
        process.arguments = ["check", "metrics"]
        let input = dir.file("metrics.prom")
        try fullText().write(toFile: input, atomically: true, encoding: .utf8)
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, said)
    }
}
