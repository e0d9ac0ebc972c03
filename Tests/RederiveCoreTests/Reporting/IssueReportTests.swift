import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// The JSON Lines error report: sorted lines, counts by code.
final class IssueReportTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private let issues = [
        RecordIssue(
            file: "a.jsonl", line: 2, id: nil, stage: .parse, code: "invalid_json", message: "bad \"quote\"\nnext"),
        RecordIssue(
            file: "a.jsonl", line: 7, id: "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90", stage: .upgrade, code: "duplicate_id",
            message: "dup"),
        RecordIssue(file: "a.jsonl", line: 11, stage: .parse, code: "invalid_json", message: "x"),
        RecordIssue(
            file: "a.jsonl", line: nil, byteOffset: 1234, stage: .read, code: "truncated_frame", message: "cut"),
        RecordIssue(file: "b.jsonl.zst", line: 1, stage: .decode, code: "negative_dimension", message: "neg"),
    ]

    private func lines(_ path: String) throws -> [[String: Any]] {
        let reader = try ExportReader(path: path)
        var out: [[String: Any]] = []
        while let line = reader.nextLine() {
            out.append(try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.bytes)) as? [String: Any]))
        }
        XCTAssertNil(reader.fault)
        return out
    }

    func testWritesSortedJSONLinesAndCounts() throws {
        for name in ["report.jsonl", "report.jsonl.zst"] {
            let path = dir.file(name)
            let report = try IssueReport(path: path)
            for issue in issues { try report.add(issue) }
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), "renamed into place only when finished")
            try report.finish()
            let rows = try lines(path)
            XCTAssertEqual(rows.count, 5)
            XCTAssertEqual(
                rows.map { $0["file"] as? String }, ["a.jsonl", "a.jsonl", "a.jsonl", "a.jsonl", "b.jsonl.zst"])
            XCTAssertEqual(rows.map { $0["line"] as? Int }, [2, 7, 11, nil, 1])
            XCTAssertEqual(
                rows.map { $0["code"] as? String },
                ["invalid_json", "duplicate_id", "invalid_json", "truncated_frame", "negative_dimension"])
            XCTAssertEqual(rows.map { $0["stage"] as? String }, ["parse", "upgrade", "parse", "read", "decode"])
            XCTAssertEqual(rows[0]["message"] as? String, "bad \"quote\"\nnext")
            XCTAssertTrue(rows[0]["id"] is NSNull)
            XCTAssertEqual(rows[1]["id"] as? String, "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90")
            XCTAssertTrue(rows[3]["line"] is NSNull)
            XCTAssertEqual(rows[3]["byteOffset"] as? Int, 1234)
            XCTAssertNil(rows[0]["byteOffset"])
            XCTAssertEqual(
                report.countsByCode,
                ["invalid_json": 2, "duplicate_id": 1, "truncated_frame": 1, "negative_dimension": 1])
            XCTAssertEqual(report.recordIssues, 4)
            XCTAssertEqual(report.fileFaults, 1)
            XCTAssertEqual(report.total, 5)
            XCTAssertEqual(
                report.codeSummary, "1 duplicate_id, 2 invalid_json, 1 negative_dimension, 1 truncated_frame")
        }
    }

    func testCountsWithoutAFile() throws {
        let report = try IssueReport(path: nil)
        for issue in issues.reversed() { try report.add(issue) }
        try report.finish()
        XCTAssertEqual(report.total, 5)
        XCTAssertEqual(report.countsByCode["invalid_json"], 2)
    }

    func testEmptyReportIsAnEmptyFile() throws {
        let path = dir.file("empty.jsonl")
        let report = try IssueReport(path: path)
        try report.finish()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)).count, 0)
        XCTAssertEqual(report.codeSummary, "")
    }

    func testReportOrder() {
        let sorted = issues.shuffled().sorted(by: RecordIssue.reportOrder)
        XCTAssertEqual(sorted, issues)
        let sameLine = [
            RecordIssue(file: "a", line: 1, stage: .parse, code: "z", message: ""),
            RecordIssue(file: "a", line: 1, stage: .parse, code: "b", message: ""),
        ]
        XCTAssertEqual(sameLine.sorted(by: RecordIssue.reportOrder).map(\.code), ["b", "z"])
    }

    func testUnwritableReportPathIsAnIOError() {
        XCTAssertThrowsError(try IssueReport(path: "/proc/no/such/dir/r.jsonl")) { error in
            XCTAssertEqual((error as? RederiveError)?.exitStatus, .failure)
        }
    }

    func testMissingReportFolderIsCreated() throws {
        let report = try IssueReport(path: dir.file("new/folder/r.jsonl"))
        try report.add(RecordIssue(file: "a", line: 1, stage: .parse, code: "invalid_json", message: "m"))
        try report.finish()
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("new/folder/r.jsonl")))
    }

    func testTallyLine() {
        var s = RunStatistics()
        s.recordsRead = 120; s.recordsDone = 110; s.recordsSkipped = 10; s.fileFaults = 1; s.seconds = 2;
        s.decodedBytes = 4_000_000
        let report = RunReport(
            runID: 0, command: "summarize", status: .completed, exitStatus: .skippedRecords, statistics: s,
            counts: [("summarized", 110)], issuesByCode: ["invalid_json": 10], newFailures: 0,
            summaryVersion: 1, fingerprint: "f", resumedFrom: nil, stopReason: nil)
        let line = report.tallyLine()
        XCTAssertTrue(
            line.hasPrefix(
                "summarize: 120 read, 110 summarized, 10 skipped, 1 file fault (10 invalid_json) in 2.00 s "
                    + "(60 records/s, 2.0 MB/s, peak "
            ), line)
        XCTAssertTrue(line.hasSuffix(" MB)"), line)
    }

    func testBufferedReportIsSortedWhateverTheArrivalOrder() throws {
        let path = dir.file("derive-issues.jsonl")
        let report = try IssueReport(path: path, buffered: true)
        for (file, line) in [("b.jsonl", 3), ("a.jsonl", 9), ("b.jsonl", 1), ("a.jsonl", 2)] {
            try report.add(RecordIssue(file: file, line: line, stage: .decode, code: "bad_transform", message: "m"))
        }
        try report.finish()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let order = try lines.map { line -> String in
            let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return "\(o["file"]!):\(o["line"]!)"
        }
        XCTAssertEqual(order, ["a.jsonl:2", "a.jsonl:9", "b.jsonl:1", "b.jsonl:3"])
    }
}
