import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `SQLiteStore.status`: counts by version, staleness by reason, the failure ledger, the run
/// history, both renderings, and that a read-only status never changes the file.
final class StoreStatusTests: XCTestCase {
    /// The ledger after importing Fixtures/: one entry per corrupt line of
    /// corrupt-records.jsonl (13) plus the truncated file's frame fault (see Fixtures/corrupt/README.md).
    static let expectedFailuresByCode: [String: Int] = [
        "invalid_json": 1, "invalid_utf8": 1, "not_an_object": 1, "missing_key": 2, "wrong_type": 1,
        "invalid_base64": 1, "invalid_room_json": 1, "non_finite_number": 1, "bad_transform": 1,
        "negative_dimension": 1, "unsupported_format_version": 1, "duplicate_id": 1, "truncated_frame": 1,
    ]

    func testFreshImportIsAllCurrent() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        let status = try store.status()
        XCTAssertEqual(status.totalRecords, 45)
        XCTAssertEqual(status.freshRecords, 45)
        XCTAssertEqual(status.recordsByVersion, [.init(summaryVersion: 2, records: 45)])
        XCTAssertEqual(status.stale, .init(version: 0, fingerprint: 0, missing: 0))
        XCTAssertEqual(status.currentVersion, SummaryDeriver.currentVersion)
        XCTAssertEqual(status.currentFingerprint, SummaryDeriver().fingerprint)
        XCTAssertEqual(status.openFailures, 14)
        XCTAssertEqual(status.failuresByCode, Self.expectedFailuresByCode)
        XCTAssertEqual(status.failuresByStage, ["read": 1, "parse": 8, "upgrade": 2, "decode": 3])
        // Pipeline order of stages, codes alphabetical within a stage.
        XCTAssertEqual(status.failures.first, .init(stage: "read", code: "truncated_frame", count: 1))
        XCTAssertEqual(
            status.failures.map(\.stage),
            status.failures.map(\.stage).sorted {
                RecordIssue.Stage.allCases.firstIndex(of: .init(rawValue: $0)!)! < RecordIssue.Stage.allCases
                    .firstIndex(of: .init(rawValue: $1)!)!
            })
    }

    func testVersionBumpMakesEveryRecordStaleForVersion() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        let status = try store.status(deriver: SummaryDeriver(version: 3))
        XCTAssertEqual(status.stale, .init(version: 45, fingerprint: 0, missing: 0))
        XCTAssertEqual(status.freshRecords, 0)
        XCTAssertEqual(status.currentVersion, 3)
        XCTAssertEqual(status.currentFingerprint, SummaryDeriver(version: 3).fingerprint)
    }

    func testParameterChangeMakesEveryRecordStaleForFingerprint() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        let status = try store.status(deriver: SummaryDeriver(version: 2, wallJoinTolerance: 0.5))
        XCTAssertEqual(status.stale, .init(version: 0, fingerprint: 45, missing: 0))
        XCTAssertEqual(status.recordsByVersion, [.init(summaryVersion: 2, records: 45)])
    }

    func testDeletedSummaryCountsAsMissingAndNeverDerived() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        try StoreFixtures.execute(store, "DELETE FROM summary WHERE record_seq = (SELECT MIN(seq) FROM record)")
        try StoreFixtures.execute(
            store,
            """
            UPDATE summary SET summary_version = 0
            WHERE record_seq IN (SELECT seq FROM record ORDER BY seq DESC LIMIT 3)
            """)
        let status = try store.status()
        XCTAssertEqual(status.totalRecords, 45)
        XCTAssertEqual(status.stale, .init(version: 3, fingerprint: 0, missing: 1))
        XCTAssertEqual(status.freshRecords, 41)
        XCTAssertEqual(
            status.recordsByVersion,
            [
                .init(summaryVersion: 0, records: 3), .init(summaryVersion: 2, records: 41),
                .init(summaryVersion: nil, records: 1),
            ])
        let text = status.text()
        XCTAssertTrue(text.contains("never derived"), text)
        XCTAssertTrue(text.contains("3 version, 0 fingerprint, 1 missing"), text)

        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(status.json().utf8)) as? [String: Any])
        let stale = try XCTUnwrap(object["stale"] as? [String: Int])
        XCTAssertEqual(stale, ["total": 4, "version": 3, "fingerprint": 0, "missing": 1])
        let records = try XCTUnwrap(object["records"] as? [String: Any])
        let byVersion = try XCTUnwrap(records["byVersion"] as? [[String: Any]])
        XCTAssertEqual(byVersion.count, 3)
        XCTAssertTrue(byVersion[2]["summaryVersion"] is NSNull)
        XCTAssertEqual(byVersion[2]["records"] as? Int, 1)
    }

    func testReadOnlyStatusLeavesTheFileByteIdentical() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("rooms.sqlite")
        let store = try StoreFixtures.importedStore(in: dir)
        store.close()  // checkpoints the WAL into the main file
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let reader = try SQLiteStore(path: path, readOnly: true)
        let status = try reader.status()
        _ = status.text()
        _ = status.json()
        _ = try reader.status(deriver: SummaryDeriver(version: 3), runLimit: 100)
        reader.close()

        XCTAssertEqual(status.totalRecords, 45)
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(before.count, after.count)
        XCTAssertTrue(before == after, "status modified the store file")
    }

    func testRunsAreListedNewestFirstAndLimited() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        _ = try DeriveJob.run(
            DeriveConfiguration(selection: DeriveSelection(all: true), workers: 2, showProgress: false), store: store)
        _ = try ExportJob.run(ExportConfiguration(outPath: dir.file("out.jsonl")), store: store)

        let status = try store.status()
        XCTAssertEqual(status.totalRuns, 3)
        XCTAssertEqual(status.recentRuns.map(\.command), ["export", "derive", "import"])
        XCTAssertEqual(status.recentRuns.map(\.id), status.recentRuns.map(\.id).sorted(by: >))
        let importRun = try XCTUnwrap(status.recentRuns.last)
        XCTAssertEqual(importRun.status, "completed")
        XCTAssertEqual(importRun.exitStatus, 3)
        XCTAssertEqual(importRun.done, 45)
        XCTAssertEqual(importRun.skipped, 13)
        XCTAssertEqual(importRun.read, 58)
        XCTAssertNotNil(importRun.durationSeconds)
        XCTAssertEqual(status.recentRuns[1].read, 45)
        XCTAssertEqual(status.recentRuns[1].unchanged, 45, "derive --all over fresh records changes nothing")

        let limited = try store.status(runLimit: 2)
        XCTAssertEqual(limited.recentRuns.map(\.command), ["export", "derive"])
        XCTAssertEqual(limited.totalRuns, 3)
        XCTAssertTrue(limited.text().contains("last 2 of 3"), limited.text())
    }

    func testJSONHasTheDocumentedKeys() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        let status = try store.status()
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(status.json().utf8)) as? [String: Any])
        XCTAssertEqual(
            Set(object.keys),
            [
                "store", "currentSummaryVersion", "currentFingerprint", "records", "stale", "newer", "history",
                "failures", "runs", "control",
            ])
        XCTAssertEqual(object["currentSummaryVersion"] as? Int, SummaryDeriver.currentVersion)
        XCTAssertEqual(object["currentFingerprint"] as? String, SummaryDeriver().fingerprint)
        let failures = try XCTUnwrap(object["failures"] as? [String: Any])
        XCTAssertEqual(failures["open"] as? Int, 14)
        XCTAssertEqual(failures["byCode"] as? [String: Int], Self.expectedFailuresByCode)
        XCTAssertEqual((failures["byStageAndCode"] as? [Any])?.count, 13)
        let runs = try XCTUnwrap(object["runs"] as? [String: Any])
        let recent = try XCTUnwrap(runs["recent"] as? [[String: Any]])
        XCTAssertEqual(
            Set(recent[0].keys),
            [
                "id", "command", "status", "exitStatus", "startedAt", "durationSeconds",
                "read", "done", "unchanged", "skipped", "pipeline",
            ])
        XCTAssertTrue(recent[0]["pipeline"] is NSNull)
    }

    func testTextTablesAreAligned() throws {
        let dir = try TemporaryDirectory()
        let store = try StoreFixtures.importedStore(in: dir)
        defer { store.close() }
        let text = try store.status().text()
        XCTAssertTrue(text.contains("records        45 (45 fresh, 0 stale)"), text)
        // Every row of the failures table puts its count in the same right-aligned column.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("  stage") })
        let rows = lines[header...].prefix { !$0.isEmpty && $0.hasPrefix("  ") }
        XCTAssertEqual(rows.count, 14)
        XCTAssertEqual(Set(rows.map(\.count)).count, 1, rows.joined(separator: "\n"))
    }

    func testReadOnlyOpeningOfAMissingStoreIsAUsageError() {
        XCTAssertThrowsError(try SQLiteStore(path: "/nonexistent-dir/rooms.sqlite", readOnly: true)) { error in
            XCTAssertEqual((error as? RederiveError)?.exitStatus, .usage)
        }
    }
}
