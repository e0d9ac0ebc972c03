import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `SQLiteStore.record(id:)` and `SQLiteStore.openFailures(matching:)`: the read side of `show` and `failures`.
final class StoreInspectTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var store: SQLiteStore!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        store = try StoreFixtures.importedStore(in: dir)
    }

    override func tearDown() {
        store?.close()
        store = nil
        dir = nil
    }

    func testRecordCarriesSourceSummaryAndFreshness() throws {
        let id = try XCTUnwrap(StoreFixtures.strings(store, "SELECT id FROM record ORDER BY seq LIMIT 1").first)
        let record = try XCTUnwrap(try store.record(id: id.lowercased()), "ids are matched in canonical spelling")
        XCTAssertEqual(record.id, id)
        XCTAssertTrue(record.sourceFile.hasSuffix(".jsonl") || record.sourceFile.hasSuffix(".jsonl.zst"))
        XCTAssertGreaterThan(record.sourceLine, 0)
        XCTAssertEqual(record.staleness, .fresh)
        let summary = try XCTUnwrap(record.summary)
        XCTAssertEqual(summary.summaryVersion, SummaryDeriver.currentVersion)
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(summary.json.utf8)))
        XCTAssertEqual(record.failures, [])
        XCTAssertEqual(record.history?.count, 0, "a record imported once has no earlier summary")
        XCTAssertEqual(try store.rawRoom(id: id)?.count, record.rawSize)

        XCTAssertEqual(try store.record(id: id, deriver: SummaryDeriver(version: 99))?.staleness, .version)
        try StoreFixtures.execute(
            store, "DELETE FROM summary WHERE record_seq = (SELECT seq FROM record WHERE id = ?)", [id])
        XCTAssertEqual(try store.record(id: id)?.staleness, .missing)
        XCTAssertNil(try store.record(id: "no-such-id"))
    }

    func testRecordJSONParsesAndCarriesEverySection() throws {
        let id = try XCTUnwrap(StoreFixtures.strings(store, "SELECT id FROM record ORDER BY seq LIMIT 1").first)
        let record = try XCTUnwrap(try store.record(id: id))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(record.json().utf8)) as? [String: Any])
        XCTAssertEqual(
            Set(object.keys),
            [
                "id", "stored", "roomName", "capturedAt", "formatVersion", "source", "rawSize",
                "rawHash", "storedAt", "staleness", "summary", "failures", "history",
            ])
        XCTAssertEqual((object["history"] as? [Any])?.count, 0)
        XCTAssertTrue(record.text().contains("history        no earlier summaries"))
    }

    func testHistoryListsTheSummariesARunReplaced() throws {
        let id = try XCTUnwrap(StoreFixtures.strings(store, "SELECT id FROM record ORDER BY seq LIMIT 1").first)
        // A derivation change (version 2) replaces every summary; the v1 ones go to the history.
        _ = try StoreFixtures.derive(store, DeriveSelection(ids: [id]), deriver: SummaryDeriver(version: 3))
        let history = try XCTUnwrap(try store.record(id: id)?.history)
        XCTAssertEqual(history.map(\.summaryVersion), [SummaryDeriver.currentVersion])
        XCTAssertTrue(try XCTUnwrap(store.record(id: id)).text().contains("1 earlier summary"))
    }

    func testOpenFailuresAreFilteredAndSortedByFileThenLine() throws {
        let all = try store.openFailures()
        XCTAssertEqual(all.count, 14, "13 skipped records and 1 truncated file")
        let keys = all.map { [$0.file ?? "", String(format: "%09d", $0.line ?? Int.max >> 8)] }
        XCTAssertEqual(keys, keys.sorted { $0.lexicographicallyPrecedes($1) }, "by file, then line")
        XCTAssertEqual(all.last(where: { $0.file?.hasSuffix("truncated.jsonl.zst") == true })?.line, nil)

        let decode = try store.openFailures(matching: FailureFilter(stage: "decode"))
        XCTAssertEqual(Set(decode.map(\.code)), ["invalid_room_json", "bad_transform", "negative_dimension"])
        XCTAssertEqual(try store.openFailures(matching: FailureFilter(code: "invalid_json")).map(\.line), [1])
        XCTAssertEqual(try store.openFailures(matching: FailureFilter(file: "corrupt-records.jsonl")).count, 13)
        XCTAssertEqual(try store.openFailures(matching: FailureFilter(file: "truncated.jsonl.zst")).count, 1)
        XCTAssertEqual(
            try store.openFailures(matching: FailureFilter(file: "records.jsonl")).count, 0,
            "a file filter matches whole path components")
        XCTAssertEqual(try store.openFailures(matching: FailureFilter(runID: 1)).count, 14)
        XCTAssertEqual(try store.openFailures(matching: FailureFilter(runID: 2)).count, 0)
        let withID = try XCTUnwrap(decode.first?.recordID)
        XCTAssertEqual(try store.openFailures(matching: FailureFilter(recordID: withID)).count, 1)
        XCTAssertEqual(try store.record(id: withID), nil, "a record that failed at decode is not stored")

        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(OpenFailure.json(decode, store: "s").utf8))
                as? [String: Any])
        XCTAssertEqual(json["count"] as? Int, 3)
        XCTAssertTrue(OpenFailure.text(decode).hasSuffix("3 open failures\n"))
        XCTAssertEqual(OpenFailure.text([]), "no open failures\n")
    }
}
