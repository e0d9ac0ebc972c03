import Foundation
import XCTest

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// A `--rewrite` of records whose stored summary is already what the deriver gives
/// (`SummaryReplacement.sameSummary`) writes only the run and the time of each
/// (`PostgresStore.summaryStatements`' restamp), not every column again.
final class PostgresRestampTests: PostgresTestCase {
    /// Every summary row's columns but the run and the time, by record.
    private func summaryValues() throws -> [String] {
        let columns = SummaryColumn.allCases.filter { $0 != .runID && $0 != .derivedAt }.map(\.name)
        return try cluster.sql(
            "SELECT record_seq, \(columns.joined(separator: ", ")) FROM summary ORDER BY record_seq", url: url)
    }

    func testARewriteOfUnchangedSummariesWritesOnlyTheRunAndTheTime() throws {
        try importFixtures()
        try cluster.sql("UPDATE summary SET derived_at = 'before'", url: url)
        // Counts every row an update names the JSON of (the upsert does, the restamp does not).
        try cluster.sql(
            """
            CREATE TABLE json_written (seq int8);
            CREATE FUNCTION note_json_written() RETURNS trigger LANGUAGE plpgsql AS
                $$ BEGIN INSERT INTO json_written VALUES (NEW.record_seq); RETURN NEW; END $$;
            CREATE TRIGGER note_json_written BEFORE UPDATE OF summary_json ON summary
                FOR EACH ROW EXECUTE FUNCTION note_json_written();
            """, url: url)
        let before = try summaryValues()
        XCTAssertFalse(before.isEmpty)
        XCTAssertEqual(
            try CommandLineTool.run(
                ["derive", "--db", url, "--all", "--rewrite", "--quiet"], stderrPath: dir.file("derive.err")), 0)
        let run = try cluster.sql("SELECT max(id) FROM run WHERE command = 'derive'", url: url)[0]
        XCTAssertEqual(
            try cluster.sql(
                "SELECT count(*) FROM summary WHERE run_id IS DISTINCT FROM \(run) OR derived_at = 'before'", url: url),
            ["0"], "every summary carries the rewrite's run and time")
        XCTAssertEqual(try summaryValues(), before, "every other column as it was")
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM json_written", url: url), ["0"], "no JSON sent again")
        XCTAssertEqual(
            try cluster.sql("SELECT count(*) FROM summary_history WHERE replaced_by_run = \(run)", url: url), ["0"])
    }

    /// A summary to write (its values do not matter to a restamp): the fixtures' first record's.
    private func aSummary(_ deriver: SummaryDeriver) throws -> RoomSummary {
        let file = try XCTUnwrap(try ExportFiles.resolve([exports]).first)
        let line = try XCTUnwrap(try StoreFixtures.lines(of: file).first)
        guard
            case .row(let row) = RecordProcessor(deriver: deriver).importItem(
                line: ExportLine(number: 1, bytes: line), file: file)
        else { throw PostgresDecodingError(column: "-", problem: "the fixture's first line is a good record") }
        return row.summary
    }

    func testOnlyTheRestampIsSentForUnchangedSummariesAndOnlyWhileTheyAreTheDeriversOwn() throws {
        try importFixtures()
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let deriver = SummaryDeriver()
        let rooms = try store.fetchRooms(
            DeriveSelection(all: true), deriver: deriver, allowDowngrade: false, after: 0, upTo: Int64.max, limit: 3)
        XCTAssertEqual(rooms.count, 3)
        let summary = try aSummary(deriver)
        let writes = rooms.map {
            SummaryWrite(
                seq: $0.seq, summary: summary, json: Array(($0.storedJSON ?? "").utf8), replacing: .sameSummary)
        }
        let restamp = store.summaryStatements(writes, deriver: deriver, runID: 77, now: "2030-01-01T00:00:00Z")
        XCTAssertEqual(restamp.count, 1)
        XCTAssertTrue(restamp[0].sql.hasPrefix("UPDATE summary SET derived_at"), restamp[0].sql)
        var mixed = writes
        mixed[0].replacing = .nothing
        XCTAssertEqual(
            store.summaryStatements(mixed, deriver: deriver, runID: 77, now: "now").map { $0.sql.prefix(19) },
            ["INSERT INTO summary", "UPDATE summary SET "], "the others upserted, then the restamp")
        // Written by another deriver since it was read: left as it is.
        try cluster.sql("UPDATE summary SET fingerprint = 'other' WHERE record_seq = \(rooms[2].seq)", url: url)
        try store.writer.run(restamp)
        XCTAssertEqual(
            try cluster.sql("SELECT record_seq, run_id, derived_at FROM summary ORDER BY record_seq LIMIT 3", url: url)
                .map { $0.split(separator: "|").dropFirst().joined(separator: "|") }.prefix(2),
            ["77|2030-01-01T00:00:00Z", "77|2030-01-01T00:00:00Z"])
        XCTAssertNotEqual(
            try cluster.sql("SELECT run_id FROM summary WHERE record_seq = \(rooms[2].seq)", url: url), ["77"])
    }

    /// The restamp's plan, for the fixtures' first `count` records (or their first and last,
    /// `spread`), with its own arguments.
    private func restampPlan(_ store: PostgresStore, count: Int, spread: Bool = false) throws -> String {
        let seqs = try cluster.sql("SELECT record_seq FROM summary ORDER BY record_seq", url: url).compactMap {
            Int64($0)
        }
        let chosen = spread ? [seqs[0], seqs[seqs.count - 1]] : Array(seqs.prefix(count))
        let restamp = PostgresStore.restamp(chosen, deriver: SummaryDeriver(), runID: 1, now: "now")
        return try store.writer.run("EXPLAIN " + restamp.sql, restamp.binds).rows.map {
            try $0.decode(String.self)
        }.joined(separator: "\n")
    }

    /// Statistics that do not know the deriver's version (the summaries were another's when
    /// last analyzed) made the planner read every summary of that version through
    /// `summary_by_version` for each batch's restamp; it finds the rows by key whatever they say.
    func testTheRestampFindsItsRowsByKeyWhateverTheStatisticsSay() throws {
        try importFixtures()
        let (version, fingerprint) = (SummaryDeriver().version, SummaryDeriver().fingerprint)
        try cluster.sql(
            """
            UPDATE summary SET summary_version = 0, fingerprint = 'another';
            ANALYZE summary;
            UPDATE summary SET summary_version = \(version), fingerprint = '\(fingerprint)';
            """, url: url)
        let store = try PostgresStore(url: url)
        defer { store.close() }
        // 32 rows: the planner would read them all; without that choice, which index it takes.
        try store.writer.run("SET enable_seqscan = off")
        let dense = try restampPlan(store, count: 20)
        XCTAssertTrue(dense.contains("summary_pkey"), dense)
        XCTAssertFalse(dense.contains("summary_by_version"), dense)
        XCTAssertTrue(dense.contains("record_seq >= "), "a range's keys are read as one key range: \(dense)")
        let sparse = try restampPlan(store, count: 2, spread: true)
        XCTAssertTrue(sparse.contains("summary_pkey"), sparse)
        XCTAssertFalse(sparse.contains("record_seq >= "), "keys far apart are looked up one by one: \(sparse)")
    }
}
