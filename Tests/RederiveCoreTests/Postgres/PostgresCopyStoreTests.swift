import Foundation
import XCTest
@testable import RederiveCore
import RederivePostgres

/// `rederive copy-store` between SQLite and a real PostgreSQL server (`PostgresCluster`),
/// through the command line: the same exports and byte-identical raw rooms on both sides,
/// a round trip back to SQLite holding the records it started from, and a copy killed
/// mid-way finished by a rerun with the same result.
final class PostgresCopyStoreTests: XCTestCase {
    private var cluster: PostgresCluster!
    private var url = ""
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws {
        cluster = try PostgresCluster.shared()
        url = try cluster.newDatabase()
        dir = try TemporaryDirectory()
    }

    override func tearDown() { dir = nil }

    private var exports: String { RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path }

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
        XCTAssertEqual(try cluster.sql("SELECT command, status FROM run", url: url), ["copy-store|completed"])

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
        let sqlite = dir.file("corpus.sqlite"), corpus = dir.file("corpus.jsonl.zst")
        let generated = try rederive([
            "generate", "--out", corpus, "--records", "1500", "--seed", "5", "--core-model-bytes", "200",
        ])
        XCTAssertEqual(generated.status, 0, generated.stderr)
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
        XCTAssertEqual(try cluster.sql("SELECT command, status FROM run", url: url), ["copy-store|running"])

        let rerun = try rederive(Array(arguments.dropLast()) + ["--json"])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let run = try XCTUnwrap(JSONSerialization.jsonObject(with: rerun.stdoutData) as? [String: Any])
        XCTAssertEqual(run["resumedFrom"] as? Int, 1, "continues the killed run")
        let counts = try XCTUnwrap(run["counts"] as? [String: Any])
        XCTAssertEqual(counts["unchanged"] as? Int, partial, "records already copied are unchanged")
        XCTAssertEqual(counts["copied"] as? Int, total - partial)
        XCTAssertEqual(
            try cluster.sql("SELECT id, command, status FROM run ORDER BY id", url: url),
            ["1|copy-store|crashed", "2|copy-store|completed"])

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
}
