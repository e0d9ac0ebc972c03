import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// `rederive summarize` end to end on a temporary export directory.
final class SummarizeJobTests: XCTestCase {
    private var dir: TemporaryDirectory!
    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private let u1 = "11111111-1111-4111-8111-111111111111"
    private let u2 = "22222222-2222-4222-8222-222222222222"
    private let u3 = "33333333-3333-4333-8333-333333333333"
    private let u4 = "44444444-4444-4444-8444-444444444444"

    /// The keys of the field table (`RoomSummary.fields`), which the spec table is checked against.
    private let summaryKeys = Set(RoomSummary.Key.allCases.map(\.rawValue))

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Writes the export: a.jsonl (good records of all three versions plus corrupt ones and a
    /// duplicate id), b.jsonl.zst, and c.jsonl.zst whose second frame is truncated.
    private func writeExport(corrupt: Bool) throws -> (dir: String, files: [String]) {
        let export = dir.url.appendingPathComponent("export")
        try FileManager.default.createDirectory(at: export, withIntermediateDirectories: true)
        let a = export.appendingPathComponent("a.jsonl").path
        let b = export.appendingPathComponent("b.jsonl.zst").path
        let c = export.appendingPathComponent("c.jsonl.zst").path
        let negative = #"{"walls":[{"dimensions":[-1,2,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1]}]}"#
        var aLines = [
            try ExportFixtures.v1Line(
                name: "Bedroom3", timestamp: 792576000.25, room: try ExportFixtures.roomFileBytes("Bedroom3")),
            try ExportFixtures.v2Line(
                id: u1.lowercased(), name: "Kitchen", room: try ExportFixtures.compactRoom("Kitchen"),
                summary: ["wall_count": 1]),
            "",
            text(ExportFixtures.v3Line(id: u2, name: "Hallway2", roomText: try ExportFixtures.compactRoom("Hallway2"))),
        ]
        if corrupt {
            aLines += [
                "{\"roomName\": \"broken\"",  // 5 invalid_json
                try ExportFixtures.v2Line(id: "nope", name: "x", room: Array("{}".utf8)),  // 6 invalid_id
                text(ExportFixtures.v3Line(id: u2, name: "Again", roomText: Array("{}".utf8))),  // 7 duplicate_id
                "{\"formatVersion\":9,\"id\":\"\(u3)\"}",  // 8 unsupported_format_version
                try ExportFixtures.v2Line(id: u4, name: "x", room: Array("not json".utf8)),  // 9 invalid_room_json
            ]
        }
        try ExportFixtures.write(lines: aLines, to: a)
        var bLines = [
            text(
                ExportFixtures.v3Line(
                    id: u2, name: "Bathroom2", roomText: try ExportFixtures.compactRoom("Bathroom2"))),
            try ExportFixtures.v1Line(
                name: "Bedroom3", timestamp: 792576000.25, room: try ExportFixtures.roomFileBytes("Bedroom3")),
        ]
        // 3: negative_dimension
        if corrupt { bLines.append(text(ExportFixtures.v3Line(id: u3, name: "neg", roomText: Array(negative.utf8)))) }
        try ExportFixtures.write(lines: bLines, to: b)
        var files = [a, b]
        if corrupt {
            let first = dir.file("c1.jsonl.zst"), second = dir.file("c2.jsonl.zst")
            try ExportFixtures.write(
                lines: [
                    text(ExportFixtures.v3Line(id: u3, name: "c1", roomText: Array("{}".utf8))),
                    text(ExportFixtures.v3Line(id: u4, name: "c2", roomText: Array("{}".utf8))),
                ], to: first)
            try ExportFixtures.write(
                lines: [text(ExportFixtures.v3Line(id: u1, name: "c3", roomText: Array("{}".utf8)))], to: second)
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: first)))
            bytes += [UInt8](try Data(contentsOf: URL(fileURLWithPath: second))).dropLast(4)
            try Data(bytes).write(to: URL(fileURLWithPath: c))
            files.append(c)
        }
        return (export.path, files)
    }

    private struct Run {
        var outcome: RunReport
        var output: [UInt8]
        var report: [UInt8]
        var rows: [[String: Any]]
        var issues: [[String: Any]]
    }

    private func jsonLines(_ bytes: [UInt8]) throws -> [[String: Any]] {
        try bytes.split(separator: 0x0A).map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
        }
    }

    private func run(exportDir: String, workers: Int, tag: String, batchLines: Int = 2) throws -> Run {
        let files = try ExportFiles.resolve([exportDir])
        let out = dir.file("out-\(tag).jsonl"), report = dir.file("report-\(tag).jsonl")
        let config = SummarizeConfiguration(
            files: files, workers: workers, outPath: out, reportPath: report, batchLines: batchLines)
        let outcome = try SummarizeJob.run(config)
        let output = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        let reportBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: report)))
        return Run(
            outcome: outcome, output: output, report: reportBytes,
            rows: try jsonLines(output), issues: try jsonLines(reportBytes))
    }

    func testEndToEndWithCorruptRecords() throws {
        let export = try writeExport(corrupt: true)
        let (a, b, c) = (export.files[0], export.files[1], export.files[2])
        let r = try run(exportDir: export.dir, workers: 4, tag: "corrupt")

        // Output: the good records, in input order.
        XCTAssertEqual(r.rows.count, 7)
        XCTAssertEqual(r.rows.map { $0["file"] as? String }, [a, a, a, b, b, c, c])
        XCTAssertEqual(r.rows.map { $0["line"] as? Int }, [1, 2, 4, 1, 2, 1, 2])
        XCTAssertEqual(
            r.rows.map { $0["roomName"] as? String },
            ["Bedroom3", "Kitchen", "Hallway2", "Bathroom2", "Bedroom3", "c1", "c2"])
        let v1ID = RecordIdentity.contentID(
            roomName: "Bedroom3", timestamp: 792576000.25, roomData: try ExportFixtures.roomFileBytes("Bedroom3"))
        XCTAssertEqual(r.rows.map { $0["id"] as? String }, [v1ID, u1, u2, u2, v1ID, u3, u4])
        for row in r.rows {
            XCTAssertEqual(Set(row.keys), ["id", "roomName", "file", "line", "summaryVersion", "summary"])
            XCTAssertEqual(row["summaryVersion"] as? Int, SummaryDeriver.currentVersion)
            let summary = try XCTUnwrap(row["summary"] as? [String: Any])
            XCTAssertEqual(Set(summary.keys), summaryKeys)
        }
        // Summaries are derived afresh (not copied from the stale stored ones).
        for (i, name) in ["Bedroom3", "Kitchen", "Hallway2", "Bathroom2"].enumerated() {
            let room = try RoomFixtures.load(name)
            let summary = try XCTUnwrap(r.rows[i]["summary"] as? [String: Any])
            XCTAssertEqual(summary["wall_count"] as? Int, room.walls.count, name)
            XCTAssertEqual(summary["object_count"] as? Int, room.objects.count, name)
            XCTAssertEqual(summary["door_count"] as? Int, room.doors.count, name)
        }

        // Report: sorted by file then line, the file fault after its file's lines.
        let expected: [(String, Int?, String, String)] = [
            (a, 5, "invalid_json", "parse"), (a, 6, "invalid_id", "parse"), (a, 7, "duplicate_id", "upgrade"),
            (a, 8, "unsupported_format_version", "upgrade"), (a, 9, "invalid_room_json", "decode"),
            (b, 3, "negative_dimension", "decode"), (c, nil, "truncated_frame", "read"),
        ]
        XCTAssertEqual(r.issues.count, expected.count)
        for (row, e) in zip(r.issues, expected) {
            XCTAssertEqual(row["file"] as? String, e.0)
            XCTAssertEqual(row["line"] as? Int, e.1)
            XCTAssertEqual(row["code"] as? String, e.2)
            XCTAssertEqual(row["stage"] as? String, e.3)
        }
        XCTAssertEqual(r.issues[2]["id"] as? String, u2)
        let cSize = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: c)[.size] as? Int)
        XCTAssertEqual(r.issues.last?["byteOffset"] as? Int, cSize)

        let stats = r.outcome.statistics
        XCTAssertEqual(stats.recordsRead, 8 + 3 + 2)
        XCTAssertEqual(stats.recordsDone, 7)
        XCTAssertEqual(stats.recordsSkipped, 6)
        XCTAssertEqual(stats.fileFaults, 1)
        XCTAssertEqual(
            r.outcome.issuesByCode,
            [
                "invalid_json": 1, "invalid_id": 1, "duplicate_id": 1,
                "unsupported_format_version": 1, "invalid_room_json": 1,
                "negative_dimension": 1, "truncated_frame": 1,
            ])
        XCTAssertEqual(r.outcome.exitStatus, .skippedRecords)
    }

    func testOnlyGoodRecordsExitZero() throws {
        let export = try writeExport(corrupt: false)
        let r = try run(exportDir: export.dir, workers: 2, tag: "good")
        XCTAssertEqual(r.rows.count, 5)
        XCTAssertEqual(r.issues.count, 0)
        XCTAssertEqual(r.outcome.statistics.recordsSkipped, 0)
        XCTAssertEqual(r.outcome.exitStatus, .ok)
    }

    func testResultsAreIdenticalWithOneAndFourWorkers() throws {
        let export = try writeExport(corrupt: true)
        let one = try run(exportDir: export.dir, workers: 1, tag: "w1", batchLines: 3)
        let four = try run(exportDir: export.dir, workers: 4, tag: "w4", batchLines: 1)
        let fourBig = try run(exportDir: export.dir, workers: 4, tag: "w4b", batchLines: 256)
        XCTAssertFalse(one.output.isEmpty)
        XCTAssertEqual(one.output, four.output)
        XCTAssertEqual(one.output, fourBig.output)
        XCTAssertEqual(one.report, four.report)
        XCTAssertEqual(one.report, fourBig.report)
        XCTAssertEqual(one.outcome.statistics.recordsDone, four.outcome.statistics.recordsDone)
    }

    func testUnreadableFileIsAFileFaultAndTheRunGoesOn() throws {
        let export = try writeExport(corrupt: false)
        let missing = dir.file("gone.jsonl")
        let files = try ExportFiles.resolve([export.dir]) + [missing]
        let config = SummarizeConfiguration(
            files: files, workers: 2, outPath: dir.file("o.jsonl"), reportPath: dir.file("r.jsonl"))
        let outcome = try SummarizeJob.run(config)
        XCTAssertEqual(outcome.statistics.recordsDone, 5)
        XCTAssertEqual(outcome.statistics.fileFaults, 1)
        XCTAssertEqual(outcome.issuesByCode, ["file_unreadable": 1])
        XCTAssertEqual(outcome.exitStatus, .skippedRecords)
    }
}
