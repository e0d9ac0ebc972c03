import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `rederive revert`, `show`, `failures` and `history` on a PostgreSQL store (`PostgresCluster`),
/// through the built binary: each driven through the same steps as a SQLite store gives the
/// same output (times and the store's name aside).
final class PostgresInspectTests: XCTestCase {
    private var cluster: PostgresCluster!
    private var url = ""
    private var dir: TemporaryDirectory!
    private var sqlite = ""

    override func setUpWithError() throws {
        cluster = try PostgresCluster.shared()
        url = try cluster.newDatabase()
        dir = try TemporaryDirectory()
        sqlite = dir.file("rooms.sqlite")
    }

    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    /// Runs `arguments` on both stores (`--db` appended); returns the PostgreSQL and SQLite results.
    private func both(
        _ arguments: [String], status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line
    ) throws -> (pg: CommandLineResult, sqlite: CommandLineResult) {
        let pg = try rederive(arguments + ["--db", url])
        let lite = try rederive(arguments + ["--db", sqlite])
        XCTAssertEqual(pg.status, status, "postgres: \(arguments): \(pg.stderr)", file: file, line: line)
        XCTAssertEqual(lite.status, status, "sqlite: \(arguments): \(lite.stderr)", file: file, line: line)
        return (pg, lite)
    }

    /// `text` with every time (ISO 8601 UTC) and the store's name replaced, and runs of
    /// spaces (table alignment, which follows the times' lengths) collapsed.
    private func normalized(_ text: String) -> String {
        text.replacingOccurrences(of: url, with: "<store>").replacingOccurrences(of: sqlite, with: "<store>")
            .replacingOccurrences(
                of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"#, with: "<time>", options: .regularExpression
            )
            .replacingOccurrences(of: " {2,}", with: " ", options: .regularExpression)
    }

    /// Same output on both engines, once normalized.
    private func assertSame(
        _ arguments: [String], status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let (pg, lite) = try both(arguments, status: status, file: file, line: line)
        XCTAssertEqual(normalized(pg.stdout), normalized(lite.stdout), "\(arguments)", file: file, line: line)
        XCTAssertFalse(pg.stdout.isEmpty && status == 0, "\(arguments) printed nothing", file: file, line: line)
    }

    /// Every summary column of the PostgreSQL store, by record (times and runs included).
    private func pgSummaries() throws -> [String] {
        try cluster.sql(
            "SELECT record_seq, \(SummaryColumn.list()) FROM summary ORDER BY record_seq", url: url)
    }

    /// The exported summaries, stale ones included, without their derivation times.
    private func exported(_ db: String) throws -> [String] {
        let out = dir.file("export-\(UUID().uuidString.prefix(6)).jsonl")
        let r = try rederive(["export", "--db", db, "--out", out, "--all-records", "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map {
            String($0).replacingOccurrences(of: #""derivedAt":"[^"]*","#, with: "", options: .regularExpression)
        }
    }

    /// The `counts` object of a run's `--json` report.
    private func counts(_ result: CommandLineResult) throws -> [String: Int] {
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        return try XCTUnwrap(report["counts"] as? [String: Int], result.stdout)
    }

    private func pgInt(_ sql: String) throws -> Int { Int(try cluster.sql(sql, url: url).first ?? "") ?? -1 }

    /// Makes the summaries matching `condition` look derived by an older build, on both stores.
    private func makeStale(where condition: String = "TRUE") throws {
        let update = """
            UPDATE summary SET summary_version = 0, fingerprint = 'v0-old', floor_area_sqm = 1.5,
                summary_json = '{"old":' || record_seq || '}' WHERE
            """
        try cluster.sql(update + " " + condition, url: url)
        try StoreInspection.execute(sqlite, update + " " + condition)
    }

    private struct Backfill {
        /// Records in each store.
        var records: Int
        /// The backfill run (every summary replaced).
        var run: Int64
        /// The record a later run changed again.
        var victim: String
        /// The PostgreSQL summaries before the backfill.
        var before: [String]
    }

    /// Both stores: the exports imported, every summary made stale and backfilled by one
    /// run, then one record (the victim) made stale again and derived by a later run.
    private func backfillWithLaterChange() throws -> Backfill {
        _ = try both(["import", "Fixtures/exports", "-q"])
        let records = try pgInt("SELECT count(*) FROM summary")
        XCTAssertEqual(records, try StoreInspection.int(sqlite, "SELECT COUNT(*) FROM summary"))
        XCTAssertGreaterThan(records, 30)
        try makeStale()
        let before = try pgSummaries()
        _ = try both(["derive", "-q"])
        let run = Int64(try pgInt("SELECT max(id) FROM run"))
        XCTAssertEqual(try StoreInspection.run(sqlite)?["id"] as Int64?, run)
        XCTAssertEqual(try pgInt("SELECT count(*) FROM summary_history WHERE replaced_by_run = \(run)"), records)
        let victim = try XCTUnwrap(
            try cluster.sql("SELECT id FROM record ORDER BY seq OFFSET 2 LIMIT 1", url: url).first)
        try makeStale(where: "record_seq = (SELECT seq FROM record WHERE id = '\(victim)')")
        _ = try both(["derive", "--ids", victim, "-q"])
        return Backfill(records: records, run: run, victim: victim, before: before)
    }

    func testRevertRestoresThePreviousSummariesAsOnSQLite() throws {
        let b = try backfillWithLaterChange()
        let victimSeq = try cluster.sql("SELECT seq FROM record WHERE id = '\(b.victim)'", url: url)[0]
        let victimRow = try XCTUnwrap(try pgSummaries().first { $0.hasPrefix(victimSeq + "|") })

        let (pg, lite) = try both(["revert", "--run", String(b.run), "--json"])
        for r in [pg, lite] {
            XCTAssertTrue(
                r.stdout.contains("\"restored\":\(b.records - 1),\"conflicts\":1,\"alreadyReverted\":0"), r.stdout)
            XCTAssertTrue(r.stderr.contains("left untouched (conflicts): \(b.victim)"), r.stderr)
        }
        let after = try pgSummaries()
        let revertRun = try pgInt("SELECT max(id) FROM run WHERE command = 'revert'")
        // Columns: record_seq, version, fingerprint, derived_at, run_id, …: run_id is the fifth.
        func withoutRunID(_ rows: [String]) -> [String] {
            rows.map { row in
                var columns = row.split(separator: "|", omittingEmptySubsequences: false)
                columns[4] = "-"
                return columns.joined(separator: "|")
            }
        }
        XCTAssertEqual(
            withoutRunID(after.filter { !$0.hasPrefix(victimSeq + "|") }),
            withoutRunID(b.before.filter { !$0.hasPrefix(victimSeq + "|") }),
            "restored exactly, derivation time included")
        XCTAssertEqual(
            try pgInt("SELECT count(*) FROM summary WHERE run_id = \(revertRun)"), b.records - 1,
            "restored rows are written by the revert")
        XCTAssertEqual(after.first { $0.hasPrefix(victimSeq + "|") }, victimRow, "the conflict is left alone")
        XCTAssertEqual(try exported(url), try exported(sqlite))
        XCTAssertEqual(
            try pgInt("SELECT count(*) FROM summary_history WHERE replaced_by_run = \(revertRun)"), b.records - 1,
            "what the revert replaced is kept")
        XCTAssertEqual(
            try cluster.sql(
                "SELECT status, records_read, records_done, checkpoint_seq IS NOT NULL FROM run "
                    + "WHERE id = \(revertRun)", url: url), ["completed|\(b.records)|\(b.records - 1)|t"])

        // Reverting twice is harmless.
        let again = try both(["revert", "--run", String(b.run), "--json"])
        for r in [again.pg, again.sqlite] {
            XCTAssertTrue(
                r.stdout.contains("\"restored\":0,\"conflicts\":1,\"alreadyReverted\":\(b.records - 1)"), r.stdout)
        }
        XCTAssertEqual(try pgSummaries(), after)

        // Reverting the revert: the same outcome on both engines.
        let redo = try both(["revert", "--run", String(revertRun), "--json"])
        XCTAssertEqual(try counts(redo.pg), try counts(redo.sqlite))
        XCTAssertTrue(
            redo.pg.stdout.contains("\"restored\":\(b.records - 1),\"conflicts\":0"),
            "redoes the backfill: \(redo.pg.stdout)")
        XCTAssertEqual(try exported(url), try exported(sqlite))
        XCTAssertEqual(
            try pgInt("SELECT count(*) FROM summary_history"),
            try StoreInspection.int(sqlite, "SELECT COUNT(*) FROM summary_history"))
    }

    func testRevertDryRunWritesNothing() throws {
        let b = try backfillWithLaterChange()
        let tables = ["summary", "summary_history", "run", "failure"]
        func snapshot() throws -> [[String]] {
            try tables.map { try cluster.sql("SELECT * FROM \($0) ORDER BY 1, 2", url: url) }
        }
        let before = try snapshot()
        let (pg, lite) = try both(["revert", "--run", String(b.run), "--dry-run", "--json"])
        for r in [pg, lite] {
            XCTAssertTrue(r.stdout.contains("\"wouldRestore\":\(b.records - 1),\"conflicts\":1"), r.stdout)
        }
        XCTAssertEqual(try snapshot(), before, "a dry run writes nothing, not even a run")

        let unknown = try rederive(["revert", "--db", url, "--run", "99"])
        XCTAssertEqual(unknown.status, 1, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("there is no run 99"), unknown.stderr)
        XCTAssertEqual(try snapshot(), before)
    }

    func testShowGivesWhatSQLiteGivesAndRawIsByteExact() throws {
        _ = try both(["import", "Fixtures", "-q"], status: 3)
        // rooms-v2.jsonl is plain JSON Lines: its first record's raw room is its base64 field, decoded.
        let line = try XCTUnwrap(
            String(
                contentsOfFile: RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports/rooms-v2.jsonl").path,
                encoding: .utf8
            ).split(separator: "\n").first)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let id = try XCTUnwrap(object["id"] as? String)
        let raw = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(object["fullRoomDataJSON"] as? String)))
        let runs = try cluster.sql("SELECT * FROM run", url: url)

        let text = try rederive(["show", id, "--db", url])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("source         Fixtures/exports/rooms-v2.jsonl:1 (format v2)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("state          fresh"), text.stdout)
        try assertSame(["show", id])
        try assertSame(["show", id, "--json"])

        let (pgRaw, liteRaw) = try both(["show", id.lowercased(), "--raw"])
        XCTAssertEqual(pgRaw.stdoutData, raw, "--raw gives back the raw room byte-exact")
        XCTAssertEqual(liteRaw.stdoutData, raw)
        // --svg reads the raw room through the same interface: the same drawing on both engines.
        let (pgSVG, liteSVG) = try both(["show", id, "--svg", "-"])
        XCTAssertTrue(pgSVG.stdout.hasPrefix("<svg"), pgSVG.stdout)
        XCTAssertEqual(pgSVG.stdout, liteSVG.stdout)

        // A record that failed at import: not stored, its failure shown.
        let failed = try XCTUnwrap(
            try cluster.sql("SELECT record_id FROM failure WHERE code = 'negative_dimension'", url: url).first)
        try assertSame(["show", failed])
        try assertSame(["show", failed, "--json"])
        let notStored = try both(["show", failed, "--raw"], status: 1)
        XCTAssertTrue(notStored.pg.stderr.contains("not stored"), notStored.pg.stderr)
        let missing = try both(["show", "NO-SUCH-ID"], status: 1)
        XCTAssertTrue(missing.pg.stderr.contains("no such record"), missing.pg.stderr)
        XCTAssertEqual(try cluster.sql("SELECT * FROM run", url: url), runs, "show writes nothing")
    }

    func testFailuresListTheSameAsOnSQLite() throws {
        _ = try both(["import", "Fixtures", "-q"], status: 3)
        let all = try rederive(["failures", "--db", url])
        XCTAssertEqual(all.status, 0, all.stderr)
        XCTAssertTrue(all.stdout.contains("Fixtures/corrupt/corrupt-records.jsonl:17  decode"), all.stdout)
        XCTAssertTrue(all.stdout.hasSuffix("14 open failures\n"), all.stdout)
        try assertSame(["failures"])
        try assertSame(["failures", "--json"])
        try assertSame(["failures", "--stage", "decode", "--code", "negative_dimension", "--json"])
        try assertSame(["failures", "--file", "truncated.jsonl.zst", "--run", "1", "--json"])
        try assertSame(["failures", "--file", "corrupt/corrupt-records.jsonl"])
        let none = try both(["failures", "--run", "9"])
        XCTAssertEqual(none.pg.stdout, "no open failures\n")
    }

    func testHistoryAndItsPruningGiveWhatSQLiteGives() throws {
        let b = try backfillWithLaterChange()
        _ = try both(["revert", "--run", String(b.run), "-q"])
        let pgHistory = try rederive(["history", "--db", url, "--id", b.victim, "--json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: pgHistory.stdoutData) as? [String: Any])
        XCTAssertEqual((object["history"] as? [Any])?.count, 2)
        try assertSame(["history", "--id", b.victim])
        try assertSame(["history", "--id", b.victim, "--json"])
        let restored = try XCTUnwrap(try cluster.sql("SELECT id FROM record ORDER BY seq LIMIT 1", url: url).first)
        try assertSame(["history", "--id", restored, "--json"])
        try assertSame(["show", restored, "--json"])

        let history = "SELECT count(*) FROM summary_history"
        XCTAssertEqual(try pgInt(history), 2 * b.records)
        let kept = try both(["history", "--prune", "--keep-runs", "1"])
        XCTAssertTrue(kept.pg.stderr.contains("history: \(b.records + 1) replaced summaries removed"), kept.pg.stderr)
        // PostgreSQL also says how many range rows of the pruned runs went (SQLite has none).
        let ranges = #", \d+ derive range rows of pruned runs"#
        XCTAssertTrue(kept.pg.stderr.range(of: ranges, options: .regularExpression) != nil, kept.pg.stderr)
        XCTAssertEqual(
            normalized(kept.pg.stderr).replacingOccurrences(of: ranges, with: "", options: .regularExpression),
            normalized(kept.sqlite.stderr))
        XCTAssertEqual(try pgInt(history), b.records - 1, "the revert's own")
        XCTAssertEqual(try StoreInspection.int(sqlite, history), b.records - 1)
        try assertSame(["history", "--id", b.victim, "--json"])
        try assertSame(["history", "--id", restored])

        _ = try both(["history", "--prune", "--before", "2000-01-01"])
        XCTAssertEqual(try pgInt(history), b.records - 1, "nothing was replaced before 2000")
        _ = try both(["history", "--prune", "--before", "2999-01-01T00:00:00Z"])
        XCTAssertEqual(try pgInt(history), 0)
        XCTAssertEqual(try StoreInspection.int(sqlite, history), 0)
        _ = try both(["history", "--id", "NO-SUCH-ID"], status: 1)
    }
}
