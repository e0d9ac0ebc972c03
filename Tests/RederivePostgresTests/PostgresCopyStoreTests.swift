import Foundation
import XCTest
@testable import RederiveCore
import RederivePostgres
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `rederive copy-store` between SQLite and a real PostgreSQL server (`PostgresCluster`),
/// through the command line: the same exports and byte-identical raw rooms on both sides,
/// a round trip back to SQLite holding the records it started from, and a copy killed
/// mid-way finished by a rerun with the same result.
final class PostgresCopyStoreTests: PostgresTestCase {
    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    /// The exported summaries without their derivation times (which differ between runs).
    private func exported(_ db: String) throws -> [String] {
        let out = dir.file("export-\(UUID().uuidString.prefix(6)).jsonl")
        let r = try rederive(["export", "--db", db, "--out", out, "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map {
            String($0).replacingOccurrences(of: #""derivedAt":"[^"]*","#, with: "", options: .regularExpression)
        }
    }

    /// Every record's metadata as both engines keep it, one line each: id, name, capture time,
    /// format version, source file and line, raw hash and size, the app's summary and its version.
    private static let metadataSQL = """
        SELECT id || '|' || room_name || '|' || captured_at || '|' || source_format_version || '|' || source_file
               || '|' || source_line || '|' || raw_hash || '|' || raw_size || '|' || COALESCE(source_summary, '-')
               || '|' || source_summary_version AS line
        FROM record ORDER BY id
        """

    private func metadata(postgres url: String) throws -> [String] { try cluster.sql(Self.metadataSQL, url: url) }

    private func metadata(sqlite path: String) throws -> [String] {
        try StoreInspection.rows(path, Self.metadataSQL).map { $0["line"] as String }
    }

    /// Asserts `rederive show ID --raw` on the SQLite store gives, for every record, the bytes
    /// the PostgreSQL store holds for it.
    private func assertSameRawRooms(
        sqlite: String, postgres url: String, file: StaticString = #filePath, line: UInt = #line
    )
        throws
    {
        let ids = try StoreInspection.rows(sqlite, "SELECT id FROM record ORDER BY seq").map { $0["id"] as String }
        let server = try PostgresStore(url: url, readOnly: true)
        defer { server.close() }
        for id in ids {
            let shown = try rederive(["show", id, "--db", sqlite, "--raw"])
            XCTAssertEqual(shown.status, 0, shown.stderr, file: file, line: line)
            XCTAssertFalse(shown.stdoutData.isEmpty, id, file: file, line: line)
            XCTAssertEqual(try server.rawRoom(id: id), [UInt8](shown.stdoutData), id, file: file, line: line)
        }
    }

    func testCopyToPostgresAndBackGivesTheSameExportsRawRoomsAndRecords() throws {
        let sqlite = dir.file("rooms.sqlite")
        XCTAssertEqual(try rederive(["import", exports, "--db", sqlite, "--quiet"]).status, 0)
        let before = StoreInspection.fileBytes(sqlite)[""]
        let copy = try rederive(["copy-store", "--from", sqlite, "--to", url, "--json", "--batch-size", "5"])
        XCTAssertEqual(copy.status, 0, copy.stderr)
        XCTAssertEqual(StoreInspection.fileBytes(sqlite)[""], before, "the SQLite store is left byte-identical")
        let run = try XCTUnwrap(JSONSerialization.jsonObject(with: copy.stdoutData) as? [String: Any])
        XCTAssertEqual((run["counts"] as? [String: Any])?["copied"] as? Int, 32)
        XCTAssertEqual(
            try cluster.sql("SELECT command, status FROM run ORDER BY id", url: url),
            ["import|completed", "copy-store|completed"], "the source's run, then the copy's")

        XCTAssertEqual(try exported(url), try exported(sqlite))
        XCTAssertEqual(try metadata(postgres: url), try metadata(sqlite: sqlite))
        try assertSameRawRooms(sqlite: sqlite, postgres: url)

        // And back: a new SQLite store holds the records the first one did.
        let back = dir.file("back.sqlite")
        let runs = try cluster.sql("SELECT count(*) FROM run", url: url)
        let returned = try rederive(["copy-store", "--from", url, "--to", back, "--quiet"])
        XCTAssertEqual(returned.status, 0, returned.stderr)
        for table in ["record", "raw", "summary"] {
            XCTAssertEqual(
                try StoreInspection.dump(back)[table], try StoreInspection.dump(sqlite)[table], "round trip: \(table)")
        }
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM run", url: url), runs, "the source was only read")
    }

    func testKilledCopyIsFinishedByARerunWithTheSameResult() throws {
        let sqlite = dir.file("corpus.sqlite")
        let corpus = try GeneratedCorpus.path(records: 1500, seed: 5, coreModelBytes: 200)
        let imported = try rederive(["import", corpus, "--db", sqlite, "--quiet"])
        XCTAssertTrue([0, 3].contains(imported.status), imported.stderr)
        let total = try StoreInspection.int(sqlite, "SELECT COUNT(*) FROM record")
        XCTAssertGreaterThan(total, 1000)

        let arguments = [
            "copy-store", "--from", sqlite, "--to", url, "--batch-size", "10", "--workers", "1", "--quiet",
        ]
        let child = try CommandLineTool.Child(arguments, stderrPath: dir.file("killed.stderr"))
        let deadline = Date().addingTimeInterval(120)
        var copied = 0
        while child.isRunning && Date() < deadline {
            // Some batches committed, and the copy not yet done (the schema appears first).
            copied = Int((try? cluster.sql("SELECT count(*) FROM record", url: url))?.first ?? "") ?? 0
            if copied >= 50 { break }
            usleep(2_000)
        }
        child.signal(SIGKILL)
        child.wait()
        let partial = Int(try cluster.sql("SELECT count(*) FROM record", url: url)[0]) ?? 0
        XCTAssertGreaterThan(partial, 0, "killed after some batches were committed")
        XCTAssertLessThan(partial, total, "killed before the copy finished")
        XCTAssertEqual(
            try cluster.sql("SELECT command, status FROM run ORDER BY id", url: url),
            ["import|completed", "copy-store|running"])

        let rerun = try rederive(Array(arguments.dropLast()) + ["--json"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let run = try XCTUnwrap(JSONSerialization.jsonObject(with: rerun.stdoutData) as? [String: Any])
        XCTAssertEqual(run["resumedFrom"] as? Int, 2, "continues the killed run")
        let counts = try XCTUnwrap(run["counts"] as? [String: Any])
        XCTAssertEqual(counts["unchanged"] as? Int, partial, "records already copied are unchanged")
        XCTAssertEqual(counts["copied"] as? Int, total - partial)
        XCTAssertEqual(
            try cluster.sql("SELECT id, command, status FROM run ORDER BY id", url: url),
            ["1|import|completed", "2|copy-store|crashed", "3|copy-store|completed"], "the source's run copied once")

        XCTAssertEqual(try exported(url), try exported(sqlite))
        XCTAssertEqual(try metadata(postgres: url), try metadata(sqlite: sqlite))
        // Raw rooms byte-identical: every one by content hash, a sample through show --raw.
        XCTAssertEqual(
            try cluster.sql(
                """
                SELECT count(*) FROM record JOIN raw_room ON raw_room.record_seq = record.seq
                JOIN raw_core_model ON raw_core_model.record_seq = record.seq
                """, url: url), ["\(total)"])
        let server = try PostgresStore(url: url, readOnly: true)
        defer { server.close() }
        let sample = try StoreInspection.rows(sqlite, "SELECT id FROM record WHERE seq % 97 = 1").map {
            $0["id"] as String
        }
        for id in sample {
            let shown = try rederive(["show", id, "--db", sqlite, "--raw"])
            XCTAssertEqual(try server.rawRoom(id: id), [UInt8](shown.stdoutData), id)
        }
    }

    // MARK: The history comes along (issue 19 item 4)

    private static let runsSQL = "SELECT id || '|' || command || '|' || status || '|' || arguments AS x FROM run"
    private static let ledgerSQL = """
        SELECT record_key || '|' || COALESCE(record_id, '-') || '|' || COALESCE(file, '-') || '|'
               || COALESCE(CAST(line AS TEXT), '-') || '|' || stage || '|' || code || '|' || message AS x
        FROM failure ORDER BY record_key
        """

    /// Exports with a line that never becomes a record, imported into `db`; then five
    /// summaries made stale and a derive (run 2) that replaces them, leaving five history rows.
    private func storeWithHistory(_ db: String, makeStale: (String) throws -> Void) throws {
        let bad = dir.file("bad.jsonl")
        try "{\"not\": a record\n".write(toFile: bad, atomically: true, encoding: .utf8)
        XCTAssertEqual(try rederive(["import", exports, bad, "--db", db, "--quiet"]).status, 3)
        try makeStale("UPDATE summary SET fingerprint = 'old' WHERE record_seq <= 5")
        let derived = try rederive(["derive", "--db", db, "--quiet"])
        XCTAssertEqual(derived.status, 0, derived.stderr)
    }

    /// `history --id ID --json` of the first record the derive replaced.
    private func history(_ db: String, id: String) throws -> String {
        let shown = try rederive(["history", "--db", db, "--id", id, "--json"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        return shown.stdout
    }

    private func assertRestoresRunTwo(_ db: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let reverted = try rederive(["revert", "--db", db, "--run", "2"])
        XCTAssertEqual(reverted.status, 0, reverted.stderr, file: file, line: line)
        XCTAssertTrue(reverted.stderr.contains("5 restored, 0 conflicts"), reverted.stderr, file: file, line: line)
    }

    func testCopyToPostgresCarriesTheRunHistorySummaryHistoryAndFailureLedger() throws {
        let sqlite = dir.file("rooms.sqlite")
        try storeWithHistory(sqlite) { try StoreInspection.execute(sqlite, $0) }
        let sourceRuns = try StoreInspection.rows(sqlite, Self.runsSQL + " ORDER BY id").map { $0["x"] as String }
        XCTAssertEqual(sourceRuns.count, 2)
        let id = try StoreInspection.rows(sqlite, "SELECT id FROM record WHERE seq = 1")[0]["id"] as String
        for attempt in ["copy", "rerun"] {
            let copy = try rederive(["copy-store", "--from", sqlite, "--to", url, "--batch-size", "5"])
            XCTAssertEqual(copy.status, 0, copy.stderr)
            // The rerun adds nothing and says so (issue 36 #13).
            let said =
                attempt == "copy"
                ? "history copied: " : "history already copied by an earlier copy-store, nothing added: "
            XCTAssertTrue(copy.stderr.contains(said + "2 runs, 5 replaced summaries, 1 failure"), copy.stderr)
            XCTAssertEqual(try cluster.sql(Self.runsSQL + " WHERE id <= 2 ORDER BY id", url: url), sourceRuns, attempt)
            XCTAssertEqual(try cluster.sql("SELECT count(*) FROM summary_history", url: url), ["5"], attempt)
            XCTAssertEqual(
                try cluster.sql(Self.ledgerSQL, url: url),
                try StoreInspection.rows(sqlite, Self.ledgerSQL).map { $0["x"] as String }, attempt)
        }
        XCTAssertEqual(try history(url, id: id), try history(sqlite, id: id))
        try assertRestoresRunTwo(url)
    }

    func testCopyFromPostgresCarriesTheRunHistorySummaryHistoryAndFailureLedger() throws {
        try storeWithHistory(url) { try cluster.sql($0, url: url) }
        let sourceRuns = try cluster.sql(Self.runsSQL + " ORDER BY id", url: url)
        let id = try cluster.sql("SELECT id FROM record WHERE seq = 1", url: url)[0]
        let back = dir.file("back.sqlite")
        let copy = try rederive(["copy-store", "--from", url, "--to", back, "--batch-size", "5"])
        XCTAssertEqual(copy.status, 0, copy.stderr)
        XCTAssertEqual(
            try StoreInspection.rows(back, Self.runsSQL + " WHERE id <= 2 ORDER BY id").map { $0["x"] as String },
            sourceRuns)
        XCTAssertEqual(try StoreInspection.int(back, "SELECT count(*) FROM summary_history"), 5)
        XCTAssertEqual(
            try StoreInspection.rows(back, Self.ledgerSQL).map { $0["x"] as String },
            try cluster.sql(Self.ledgerSQL, url: url))
        XCTAssertEqual(try history(back, id: id), try history(url, id: id))
        try assertRestoresRunTwo(back)
    }
}
