import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Valid text is never refused or mangled by a store (issue 22, F05/F06): NUL and the other
/// awkward code points of a room name, or of a rejected value quoted in a failure message,
/// come back byte for byte from `show`, `export`, `history` and `failures`, on SQLite and on
/// PostgreSQL alike — one test body, run against each engine.
final class StoredTextTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    /// NUL (also last), a non-character, LINE SEPARATOR, an emoji, ESC and a lone CR.
    private static let name = "a\u{0}b \u{FFFE} \u{2028} \u{1F3E0} \u{1B}[2J \r\u{0}"
    private static let id = "00000000-0000-0000-0000-00000000000C"
    private static let badTimeID = "00000000-0000-0000-0000-00000000000D"
    private static let badTime = "2026\u{0}\u{2028}\u{1B}x"
    private static let badID = "nul\u{0}id\u{FFFE}"

    func testSQLiteKeepsEveryValidCodePoint() throws {
        try assertRoundTrip(db: dir.file("rooms.sqlite"))
    }

    func testPostgreSQLKeepsEveryValidCodePointAsSQLiteDoes() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.newDatabase()
        let pg = try assertRoundTrip(db: url)
        let lite = try assertRoundTrip(db: dir.file("rooms.sqlite"))
        XCTAssertEqual(pg, lite, "show, export, history and failures give the same on both engines")
        // copy-store carries the name across engines unchanged.
        let copy = dir.file("copy.sqlite")
        let copied = try rederive(["copy-store", "--from", url, "--to", copy, "--quiet"])
        XCTAssertEqual(copied.status, 0, copied.stderr)
        let shown = try rederive(["show", Self.id, "--db", copy, "--json"])
        XCTAssertEqual(try json(shown)["roomName"] as? String, Self.name, shown.stderr)
        // Text without NUL is stored as before; the exact bytes only beside text holding NUL.
        XCTAssertEqual(
            try cluster.sql("SELECT count(*) FROM record WHERE room_name_utf8 IS NOT NULL", url: url), ["1"])
    }

    func testAPostgreSQLStoreFromBeforeTheTextColumnsIsMigrated() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.newDatabase()
        XCTAssertEqual(try rederive(["import", "Fixtures/exports/rooms-v2.jsonl", "--db", url, "--quiet"]).status, 0)
        // What a store written before pg-v2-text-with-nul looks like.
        for sql in [
            "ALTER TABLE record DROP COLUMN room_name_utf8", "ALTER TABLE failure DROP COLUMN message_utf8",
            "DELETE FROM schema_migration WHERE name = 'pg-v2-text-with-nul'",
        ] {
            try cluster.sql(sql, url: url)
        }
        let status = try rederive(["status", "--db", url])
        XCTAssertEqual(status.status, 2, status.stderr)
        XCTAssertTrue(status.stderr.contains("schema is older than this build"), status.stderr)
        try assertRoundTrip(db: url)
        XCTAssertEqual(
            try cluster.sql("SELECT name FROM schema_migration ORDER BY name", url: url),
            [
                "pg-v1-initial", "pg-v2-text-with-nul", "pg-v3-failure-ack", "pg-v4-faulted-files",
                "pg-v5-summary-fillfactor", "pg-v6-run-batch-and-control", "pg-v7-batch-health",
                "pg-v8-statistics-targets",
            ] + SummaryColumn.additions.map(\.migrationName))
    }

    /// Imports the hostile export into `db` (twice: the second run finds everything
    /// unchanged, which needs the stored name read back exactly) and checks every output;
    /// returns them with the store's name and times left out.
    @discardableResult
    private func assertRoundTrip(db: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let room = try JSONSerialization.jsonObject(with: Data(try ExportFixtures.compactRoom("Kitchen")))
        func record(id: String, capturedAt: String = "2026-02-10T09:15:00Z") throws -> String {
            try ExportFixtures.line([
                "formatVersion": 3, "id": id, "roomName": Self.name, "capturedAt": capturedAt, "room": room,
            ])
        }
        let export = dir.file("hostile.jsonl")
        try ExportFixtures.write(
            lines: [
                try record(id: Self.id), try record(id: Self.badTimeID, capturedAt: Self.badTime),
                try record(id: Self.badID),
            ], to: export)
        XCTAssertTrue(try String(contentsOfFile: export, encoding: .utf8).contains(#"a\u0000b"#), "valid JSON text")

        for run in 1...2 {
            let imported = try rederive(["import", export, "--db", db, "--json"])
            XCTAssertEqual(imported.status, 3, "import \(run): \(imported.stderr)", file: file, line: line)
            let counts = try XCTUnwrap(try json(imported)["counts"] as? [String: Any], file: file, line: line)
            XCTAssertEqual(counts[run == 1 ? "imported" : "unchanged"] as? Int, 1, "\(counts)", file: file, line: line)
        }

        let shown = try rederive(["show", Self.id, "--db", db, "--json"])
        XCTAssertEqual(shown.status, 0, shown.stderr, file: file, line: line)
        XCTAssertEqual(try json(shown)["roomName"] as? String, Self.name, file: file, line: line)

        let out = dir.file("export-\(UUID().uuidString.prefix(6)).jsonl")
        let exported = try rederive(["export", "--db", db, "--out", out, "--quiet"])
        XCTAssertEqual(exported.status, 0, exported.stderr, file: file, line: line)
        let exportedText = try String(contentsOfFile: out, encoding: .utf8)
        let exportedRecord = try XCTUnwrap(
            try exportedText.split(separator: "\n").compactMap {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }.first { $0["id"] as? String == Self.id }, file: file, line: line)
        XCTAssertEqual(exportedRecord["roomName"] as? String, Self.name, file: file, line: line)

        let history = try rederive(["history", "--db", db, "--id", Self.id, "--json"])
        XCTAssertEqual(history.status, 0, history.stderr, file: file, line: line)

        let preview = dir.file("preview-\(UUID().uuidString.prefix(6))")
        let dryRun = try rederive(["derive", "--db", db, "--dry-run", "--all", "--preview-out", preview, "--quiet"])
        XCTAssertEqual(dryRun.status, 0, dryRun.stderr, file: file, line: line)

        let failures = try rederive(["failures", "--db", db, "--json"])
        XCTAssertEqual(failures.status, 0, failures.stderr, file: file, line: line)
        let messages = try XCTUnwrap(try json(failures)["failures"] as? [[String: Any]], file: file, line: line)
            .compactMap { $0["message"] as? String }
        XCTAssertEqual(
            messages.sorted(),
            [
                "capturedAt \"\(Self.badTime)\" is not an ISO 8601 date-time",
                "id \"\(Self.badID)\" is not a UUID",
            ], file: file, line: line)

        return [shown.stdout, exportedText, history.stdout, failures.stdout].map {
            $0.replacingOccurrences(of: db, with: "<store>").replacingOccurrences(
                of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"#, with: "<time>", options: .regularExpression)
        }
    }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    private func json(_ result: CommandLineResult) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any], result.stdout)
    }
}
