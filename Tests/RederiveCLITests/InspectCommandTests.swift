import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `rederive show`, `rederive failures` and `rederive status --check` on the built binary.
final class InspectCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!
    private var db: String!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        db = dir.file("rooms.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures", "--db", db, "--quiet"]).status, 3)
    }

    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String], stdin: Data? = nil) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, stdin: stdin, scratch: dir)
    }

    func testFailuresListsEveryOpenFailureWithFileAndLine() throws {
        let r = try rederive(["failures", "--db", db])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("Fixtures/corrupt/corrupt-records.jsonl:17  decode"), r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("14 open failures\n"), r.stdout)

        let json = try rederive(["failures", "--db", db, "--stage", "decode", "--code", "negative_dimension", "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        let failures = try XCTUnwrap(object["failures"] as? [[String: Any]])
        XCTAssertEqual(failures.count, 1)
        XCTAssertEqual(failures[0]["file"] as? String, "Fixtures/corrupt/corrupt-records.jsonl")
        XCTAssertEqual(failures[0]["line"] as? Int, 17)

        let byFile = try rederive(["failures", "--db", db, "--file", "truncated.jsonl.zst", "--run", "1", "--json"])
        XCTAssertEqual(
            (try JSONSerialization.jsonObject(with: byFile.stdoutData) as? [String: Any])?["count"] as? Int, 1)
        XCTAssertEqual(try rederive(["failures", "--db", db, "--run", "9"]).stdout, "no open failures\n")
        let badStage = try rederive(["failures", "--db", db, "--stage", "decoder"])
        XCTAssertEqual(badStage.status, 1)
        XCTAssertTrue(badStage.stderr.contains("unknown stage"), badStage.stderr)
        XCTAssertEqual(try rederive(["failures", "--db", dir.file("typo.sqlite")]).status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("typo.sqlite")), "never created")
    }

    func testShowDescribesAStoredRecordAndRawIsByteExact() throws {
        // rooms-v2.jsonl is plain JSON Lines: its first record's raw room is its base64 field, decoded.
        let line = try XCTUnwrap(
            String(
                contentsOfFile: RoomFixtures.repoRoot
                    .appendingPathComponent("Fixtures/exports/rooms-v2.jsonl").path, encoding: .utf8
            ).split(separator: "\n").first)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let id = try XCTUnwrap(object["id"] as? String)
        let raw = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(object["fullRoomDataJSON"] as? String)))

        let before = StoreInspection.fileBytes(db)
        let text = try rederive(["show", id, "--db", db])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("source         Fixtures/exports/rooms-v2.jsonl:1 (format v2)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("state          fresh"), text.stdout)
        XCTAssertTrue(text.stdout.contains("open failures  none"), text.stdout)

        let rawOut = try rederive(["show", id.lowercased(), "--db", db, "--raw"])
        XCTAssertEqual(rawOut.status, 0, rawOut.stderr)
        XCTAssertEqual(rawOut.stdoutData, raw, "--raw gives back the raw room byte-exact")

        let json = try rederive(["show", id, "--db", db, "--json"])
        let shown = try XCTUnwrap(JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        XCTAssertEqual(shown["formatVersion"] as? Int, 2)
        XCTAssertEqual((shown["source"] as? [String: Any])?["line"] as? Int, 1)
        XCTAssertNotNil((shown["summary"] as? [String: Any])?["summary"] as? [String: Any])
        XCTAssertEqual(StoreInspection.fileBytes(db)[""], before[""], "show opens the store read-only")
    }

    func testShowOfARecordThatFailedAtImportListsItsFailure() throws {
        let failures = try rederive(["failures", "--db", db, "--code", "negative_dimension", "--json"])
        let failure = try XCTUnwrap(
            ((try JSONSerialization.jsonObject(with: failures.stdoutData) as? [String: Any])?[
                "failures"] as? [[String: Any]])?.first)
        let id = try XCTUnwrap(failure["id"] as? String)
        let r = try rederive(["show", id, "--db", db])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("stored         no"), r.stdout)
        XCTAssertTrue(r.stdout.contains("corrupt-records.jsonl:17"), r.stdout)
        let raw = try rederive(["show", id, "--db", db, "--raw"])
        XCTAssertEqual(raw.status, 1)
        XCTAssertTrue(raw.stderr.contains("not stored"), raw.stderr)
        let missing = try rederive(["show", "NO-SUCH-ID", "--db", db])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("no such record"), missing.stderr)
    }

    func testStatusCheckSaysWhatNeedsAttention() throws {
        let r = try rederive(["status", "--db", db, "--check"])
        XCTAssertEqual(r.status, 5, r.stderr)
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 1, r.stdout)
        XCTAssertTrue(r.stdout.contains("14 open failures"), r.stdout)

        let clean = dir.file("clean.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/exports", "--db", clean, "-q"]).status, 0)
        let ok = try rederive(["status", "--db", clean, "--check"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(ok.stdout, "ok\n")
        let json = try rederive(["status", "--db", clean, "--check", "--json"])
        XCTAssertEqual(
            (try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])?["ok"] as? Bool, true)
    }
}
