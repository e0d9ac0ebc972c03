import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `ExportJob`: which records are written, the line format, zstd, keyset paging, `--since`,
/// atomic output and the run history.
final class ExportJobTests: XCTestCase {
    static let lineKeys: Set<String> = [
        "id", "roomName", "capturedAt", "summaryVersion", "fingerprint", "derivedAt", "summary",
    ]

    /// The output's lines, decompressed by the `zstd` tool when installed (an independent
    /// decoder), else by `ExportReader`.
    func lines(_ path: String) throws -> [String] {
        var data: Data
        if path.hasSuffix(".zst"), FileManager.default.isExecutableFile(atPath: "/usr/bin/zstd") {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/zstd")
            process.arguments = ["-dcq", path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, "zstd -d \(path)")
        } else if path.hasSuffix(".zst") {
            let reader = try ExportReader(path: path)
            data = Data()
            while let line = reader.nextLine() { data += line.bytes + [0x0A] }
            XCTAssertNil(reader.fault)
        } else {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.isEmpty || text.hasSuffix("\n"), "every line ends with a newline")
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    func objects(_ path: String) throws -> [[String: Any]] {
        try lines(path).map { line in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
        }
    }

    func testExportsEveryFreshRecordAsZstdJSONLines() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        let out = dir.file("summaries.jsonl.zst")
        let report = try ExportJob.run(ExportConfiguration(outPath: out), store: store)
        XCTAssertEqual(report.exitStatus, .ok)
        XCTAssertEqual(report.status, .completed)
        XCTAssertEqual(report.statistics.recordsRead, 45)
        XCTAssertEqual(report.statistics.recordsDone, 45)

        let raw = try Data(contentsOf: URL(fileURLWithPath: out))
        XCTAssertEqual(Array(raw.prefix(4)), [0x28, 0xB5, 0x2F, 0xFD], "zstd frame magic")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + ".partial"))

        let objects = try objects(out)
        XCTAssertEqual(objects.count, 45)
        let storedIDs = try StoreFixtures.strings(store, "SELECT id FROM record ORDER BY seq")
        XCTAssertEqual(objects.map { $0["id"] as? String }, storedIDs, "ordered by seq")
        let storedJSON = try StoreFixtures.strings(
            store, "SELECT summary_json FROM summary JOIN record ON seq = record_seq ORDER BY seq")
        let names = try StoreFixtures.strings(store, "SELECT room_name FROM record ORDER BY seq")
        let derivedAt = try StoreFixtures.strings(
            store, "SELECT derived_at FROM summary JOIN record ON seq = record_seq ORDER BY seq")
        for (i, object) in objects.enumerated() {
            XCTAssertEqual(Set(object.keys), Self.lineKeys)
            XCTAssertEqual(object["summaryVersion"] as? Int, SummaryDeriver.currentVersion)
            XCTAssertEqual(object["fingerprint"] as? String, SummaryDeriver().fingerprint)
            XCTAssertEqual(object["roomName"] as? String, names[i])
            XCTAssertEqual(object["derivedAt"] as? String, derivedAt[i])
            XCTAssertNotNil(object["capturedAt"] as? String)
            let summary = try XCTUnwrap(object["summary"] as? NSDictionary)
            let stored = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(storedJSON[i].utf8)) as? NSDictionary)
            XCTAssertEqual(summary, stored, "summary round-trips for \(storedIDs[i])")
        }
        // The stored text is spliced in verbatim: each line ends with it.
        for (line, json) in zip(try lines(out), storedJSON) {
            XCTAssertTrue(line.hasSuffix(",\"summary\":" + json + "}"))
        }
    }

    func testDefaultSkipsStaleAndNeverDerivedAllRecordsIncludesStale() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        try StoreFixtures.execute(
            store,
            """
            UPDATE summary SET summary_version = 0 WHERE record_seq IN (SELECT seq FROM record ORDER BY seq LIMIT 5)
            """)
        try StoreFixtures.execute(
            store,
            """
            UPDATE summary SET fingerprint = 'v1-0000000000000000'
            WHERE record_seq IN (SELECT seq FROM record ORDER BY seq DESC LIMIT 2)
            """)
        try StoreFixtures.execute(
            store, "DELETE FROM summary WHERE record_seq = (SELECT seq FROM record ORDER BY seq LIMIT 1 OFFSET 20)")
        let staleIDs = Set(
            try StoreFixtures.strings(
                store,
                """
                SELECT id FROM record JOIN summary ON seq = record_seq
                WHERE summary_version <> \(SummaryDeriver.currentVersion)
                OR fingerprint <> '\(SummaryDeriver().fingerprint)'
                """))
        XCTAssertEqual(staleIDs.count, 7)

        let fresh = dir.file("fresh.jsonl")
        let report = try ExportJob.run(ExportConfiguration(outPath: fresh), store: store)
        let freshObjects = try objects(fresh)
        XCTAssertEqual(freshObjects.count, 45 - 7 - 1)
        XCTAssertTrue(
            freshObjects.allSatisfy {
                $0["summaryVersion"] as? Int == SummaryDeriver.currentVersion
                    && $0["fingerprint"] as? String == SummaryDeriver().fingerprint
            })
        XCTAssertTrue(Set(freshObjects.compactMap { $0["id"] as? String }).isDisjoint(with: staleIDs))
        XCTAssertEqual(report.counts.first { $0.0 == "excluded" }?.1, 8)

        let all = dir.file("all.jsonl")
        let allReport = try ExportJob.run(ExportConfiguration(outPath: all, includeStale: true), store: store)
        let allObjects = try objects(all)
        XCTAssertEqual(allObjects.count, 44, "every record with a summary; the never-derived one has nothing to export")
        XCTAssertEqual(allObjects.filter { $0["summaryVersion"] as? Int == 0 }.count, 5)
        XCTAssertTrue(staleIDs.isSubset(of: Set(allObjects.compactMap { $0["id"] as? String })))
        XCTAssertEqual(allReport.counts.first { $0.0 == "excluded" }?.1, 1)
    }

    func testRunIsRecordedInTheHistory() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        let report = try ExportJob.run(
            ExportConfiguration(outPath: dir.file("out.jsonl"), arguments: "export --db x --out out.jsonl"),
            store: store)
        let run = try XCTUnwrap(try store.status().recentRuns.first)
        XCTAssertEqual(run.id, report.runID)
        XCTAssertEqual(run.command, "export")
        XCTAssertEqual(run.status, "completed")
        XCTAssertEqual(run.exitStatus, 0)
        XCTAssertEqual(run.read, 45)
        XCTAssertEqual(run.done, 45)
        XCTAssertNotNil(run.durationSeconds)
        XCTAssertEqual(
            try StoreFixtures.strings(store, "SELECT arguments FROM run WHERE id = \(report.runID)"),
            ["export --db x --out out.jsonl"])
        XCTAssertTrue(
            report.tallyLine().hasPrefix("export (run \(report.runID)): 45 read, 45 exported, 0 excluded"),
            report.tallyLine())
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
        XCTAssertEqual(json["command"] as? String, "export")
        XCTAssertEqual((json["counts"] as? [String: Int])?["exported"], 45)
    }

    func testUnwritableOutputFailsAndLeavesNothing() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        // A regular file as the parent directory: unwritable even for root.
        let blocker = dir.file("not-a-directory")
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        let out = blocker + "/summaries.jsonl.zst"
        XCTAssertThrowsError(try ExportJob.run(ExportConfiguration(outPath: out), store: store)) { error in
            guard case .io = error as? RederiveError else { return XCTFail("expected RederiveError.io, got \(error)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + ".partial"))
        let run = try XCTUnwrap(try store.status().recentRuns.first)
        XCTAssertEqual(run.command, "export")
        XCTAssertEqual(run.status, "failed")
        XCTAssertEqual(run.exitStatus, 2)
    }

    func testStopMidwayLeavesNothingAtTheOutput() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        let out = dir.file("summaries.jsonl.zst")
        RunControl.requestStop(signal: SIGINT)
        defer { RunControl.resetStop() }
        let report = try ExportJob.run(ExportConfiguration(outPath: out, pageSize: 7), store: store)
        RunControl.resetStop()
        XCTAssertEqual(report.status, .interrupted)
        XCTAssertEqual(report.exitStatus, .interrupted)
        XCTAssertEqual(report.statistics.recordsRead, 7, "stops after the page in hand")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + ".partial"))
        XCTAssertEqual(try store.status().recentRuns.first?.status, "interrupted")
    }

    func testSmallPagesExportEveryRowExactlyOnce() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        let paged = dir.file("paged.jsonl")
        let whole = dir.file("whole.jsonl")
        _ = try ExportJob.run(ExportConfiguration(outPath: paged, pageSize: 7), store: store)
        _ = try ExportJob.run(ExportConfiguration(outPath: whole), store: store)
        let ids = try objects(paged).compactMap { $0["id"] as? String }
        XCTAssertEqual(ids.count, 45)
        XCTAssertEqual(Set(ids).count, 45)
        XCTAssertEqual(ids, try StoreFixtures.strings(store, "SELECT id FROM record ORDER BY seq"))
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: paged)), try Data(contentsOf: URL(fileURLWithPath: whole)))

        // A page size dividing the count exactly still ends cleanly.
        let exact = dir.file("exact.jsonl")
        _ = try ExportJob.run(ExportConfiguration(outPath: exact, pageSize: 5), store: store)
        XCTAssertEqual(try lines(exact).count, 45)
    }

    func testSinceFiltersByDerivationTimeToTheMillisecond() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        // Ten summaries derived on a whole second (stored without ".000"), the rest now.
        try StoreFixtures.execute(
            store,
            """
            UPDATE summary SET derived_at = '2020-01-01T00:00:05Z'
            WHERE record_seq IN (SELECT seq FROM record ORDER BY seq LIMIT 10)
            """)
        func count(since: String) throws -> Int {
            let out = dir.file("since.jsonl")
            _ = try ExportJob.run(ExportConfiguration(outPath: out, since: since), store: store)
            return try lines(out).count
        }
        XCTAssertEqual(try count(since: "2019-12-31"), 45)
        XCTAssertEqual(try count(since: "2020-01-01T00:00:05Z"), 45)
        XCTAssertEqual(try count(since: "2020-01-01T01:00:05+01:00"), 45, "offsets are converted to UTC")
        XCTAssertEqual(try count(since: "2020-01-01T00:00:05.001Z"), 35)
        XCTAssertEqual(try count(since: "2020-01-02"), 35)
        XCTAssertEqual(try count(since: "2999-01-01T00:00:00Z"), 0)
    }

    func testBadSinceIsAUsageErrorBeforeAnythingHappens() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        let out = dir.file("out.jsonl")
        XCTAssertThrowsError(try ExportJob.run(ExportConfiguration(outPath: out, since: "last tuesday"), store: store))
        { error in
            XCTAssertEqual((error as? RederiveError)?.exitStatus, .usage)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        XCTAssertEqual(try store.status().totalRuns, 1, "only the import run")
    }

    func testStoredTimestampNormalisation() throws {
        XCTAssertEqual(try ExportJob.storedTimestamp("2026-11-01"), "2026-11-01T00:00:00.000Z")
        XCTAssertEqual(try ExportJob.storedTimestamp("2026-11-01T01:30:00+01:00"), "2026-11-01T00:30:00.000Z")
        XCTAssertEqual(try ExportJob.storedTimestamp("2026-11-01T00:00:00.250Z"), "2026-11-01T00:00:00.250Z")
        XCTAssertThrowsError(try ExportJob.storedTimestamp("2026-13-45"))
    }

    /// Issue 24 item 4: an export with no record never replaces a file that holds records
    /// (exit 8, the reason, the old bytes kept), unless `allowEmpty`; an empty or missing
    /// output is written as before (exit 3 with the left-out warning).
    func testAnEmptyExportKeepsAFileThatHoldsRecords() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        for name in ["summaries.jsonl.zst", "summaries.jsonl"] {
            let out = dir.file(name)
            XCTAssertEqual(try ExportJob.run(ExportConfiguration(outPath: out), store: store).exitStatus, .ok)
            let before = try Data(contentsOf: URL(fileURLWithPath: out))
            try StoreFixtures.execute(store, "UPDATE summary SET summary_version = 0")
            XCTAssertThrowsError(try ExportJob.run(ExportConfiguration(outPath: out), store: store)) { error in
                XCTAssertEqual((error as? RederiveError)?.exitStatus, .emptyExport)
                XCTAssertTrue("\(error)".contains("--allow-empty"), "\(error)")
                XCTAssertTrue("\(error)".contains("45 records left out"), "\(error)")
            }
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)), before, "the old file is kept")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + ".partial"))
            var allowed = ExportConfiguration(outPath: out)
            allowed.allowEmpty = true
            XCTAssertEqual(try ExportJob.run(allowed, store: store).exitStatus, .skippedRecords)
            XCTAssertEqual(try lines(out), [])
            // Now the file holds nothing: another empty export may replace it.
            XCTAssertEqual(
                try ExportJob.run(ExportConfiguration(outPath: out), store: store).exitStatus, .skippedRecords)
            try StoreFixtures.execute(store, "UPDATE summary SET summary_version = \(SummaryDeriver.currentVersion)")
        }
    }
}
