import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Undo and hints tell the truth (issue 24, item 6; review rows #10-#12, #14, #15, #26, #30):
/// a revert of a pruned run says it restores nothing and exits 3, a dry run lists what it
/// would restore, hints point to the reviewed backfill path, a derive that rewrote
/// summaries names its undo, a plan from a newer build says to use that build. On both
/// engines where a store is involved (SQLite, and a throwaway PostgreSQL cluster).
final class HonestUndoCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    /// A SQLite store and a PostgreSQL one, each with the fixture exports imported, and how
    /// to run SQL on it.
    private func stores() throws -> [(db: String, sql: (String) throws -> Void)] {
        let sqlite = dir.file("rooms.sqlite")
        let cluster = try PostgresCluster.shared()
        let url = try cluster.newDatabase()
        let all: [(db: String, sql: (String) throws -> Void)] = [
            (sqlite, { try StoreInspection.execute(sqlite, $0) }),
            (url, { _ = try cluster.sql($0, url: url) }),
        ]
        for store in all {
            XCTAssertEqual(try rederive(["import", "Fixtures/exports", "--db", store.db, "--quiet"]).status, 0)
        }
        return all
    }

    private func json(_ r: CommandLineResult) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any], r.stderr)
    }

    /// Stored summaries of an "older derivation" where `condition` holds: another version, and
    /// 4 walls recorded as 5.
    private func recordFourWallsAsFive(_ db: String, where condition: String) throws {
        try StoreInspection.execute(
            db,
            "UPDATE summary SET summary_version = 0, "
                + "summary_json = replace(summary_json, '\"wall_count\":4,', '\"wall_count\":5,') "
                + "WHERE \(condition)")
    }

    /// #10: `revert --run N` after `history --prune` deleted run N's history said "0 restored",
    /// exit 0. Now it warns and exits 3, dry run or not, on both engines. A derive that
    /// rewrote summaries names the revert that undoes it.
    func testRevertOfAPrunedRunWarnsAndExitsThree() throws {
        for (db, sql) in try stores() {
            try sql("UPDATE summary SET summary_version = 0 WHERE record_seq <= 5")
            let derive = try rederive(["derive", "--db", db])
            XCTAssertEqual(derive.status, 0, derive.stderr)
            XCTAssertTrue(derive.stderr.contains("undo it with `rederive revert --db "), derive.stderr)
            XCTAssertTrue(derive.stderr.contains(" --run 2`"), derive.stderr)
            XCTAssertFalse(derive.stderr.contains("postgres://") && derive.stderr.contains("password"), derive.stderr)

            let before = try rederive(["revert", "--db", db, "--run", "2", "--dry-run"])
            XCTAssertEqual(before.status, 0, before.stderr)
            XCTAssertTrue(before.stderr.contains("5 would restore"), before.stderr)

            XCTAssertEqual(try rederive(["history", "--db", db, "--prune", "--keep-runs", "0"]).status, 0)
            let warning = "history of run 2 was pruned: nothing to restore for 5 records"
            let dry = try rederive(["revert", "--db", db, "--run", "2", "--dry-run"])
            XCTAssertEqual(dry.status, ExitStatus.skippedRecords.rawValue, "\(db): \(dry.stderr)")
            XCTAssertTrue(dry.stderr.contains(warning), dry.stderr)
            let real = try rederive(["revert", "--db", db, "--run", "2", "--json"])
            XCTAssertEqual(real.status, ExitStatus.skippedRecords.rawValue, "\(db): \(real.stderr)")
            let warnings = try XCTUnwrap(try json(real)["warnings"] as? [String])
            XCTAssertEqual(warnings.count, 1)
            XCTAssertTrue(warnings[0].hasPrefix(warning), "\(warnings)")

            // A run whose history is whole is not affected: revert the revert-free run 1 (it replaced nothing).
            let clean = try rederive(["revert", "--db", db, "--run", "1", "--quiet"])
            XCTAssertEqual(clean.status, 0, clean.stderr)
        }
    }

    /// #30: `revert --dry-run --json` lists the ids it would restore and each changed field,
    /// current → restored (it gave counts only); the log names the first ones.
    func testRevertDryRunListsIdsAndChangedFields() throws {
        let db = dir.file("rooms.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/exports", "--db", db, "--quiet"]).status, 0)
        // Stored summaries of an "older derivation": another version, and 4 walls recorded as 5.
        let four = "summary_json LIKE '%\"wall_count\":4,%' AND record_seq <= 10"
        let ids = try StoreInspection.rows(db, "SELECT id FROM record JOIN summary ON record_seq = seq WHERE \(four)")
            .map { $0["id"] as String }
        XCTAssertGreaterThan(ids.count, 1)
        try recordFourWallsAsFive(db, where: four)
        XCTAssertEqual(try rederive(["derive", "--db", db, "--quiet"]).status, 0)

        let r = try rederive(["revert", "--db", db, "--run", "2", "--dry-run", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let changes = try XCTUnwrap(try json(r)["changes"] as? [[String: Any]])
        XCTAssertEqual(changes.compactMap { $0["id"] as? String }.sorted(), ids.sorted())
        for change in changes {
            let fields = try XCTUnwrap(change["fields"] as? [String: [String: Int]])
            XCTAssertEqual(
                fields,
                [
                    "wall_count": ["from": 4, "to": 5],
                    "summary_version": ["from": SummaryDeriver.currentVersion, "to": 0],
                ],
                "\(change)")
        }
        XCTAssertTrue(r.stderr.contains("would restore: "), r.stderr)
        XCTAssertTrue(r.stderr.contains("wall_count 4 → 5"), r.stderr)
        // Nothing was written: the real revert still restores them all.
        let real = try rederive(["revert", "--db", db, "--run", "2", "--json"])
        XCTAssertEqual(real.status, 0, real.stderr)
        XCTAssertNil(try json(real)["changes"], "only a dry run lists")
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM summary WHERE summary_version = 0"), ids.count)
    }

    /// #11: stale records whose summary exists are a backfill: `status`, `status --check` and
    /// `show` point to preview → plan → apply, not to a bare `derive` (which, after a
    /// revert, silently redid the backfill). A bare derive stays the hint for records with no summary.
    func testHintsPointToTheReviewedPathWhenSummariesWouldChange() throws {
        let db = dir.file("rooms.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/exports", "--db", db, "--quiet"]).status, 0)
        let id = try XCTUnwrap(
            try StoreInspection.rows(db, "SELECT id FROM record WHERE seq = 1").first?["id"] as String?)
        try StoreInspection.execute(db, "UPDATE summary SET summary_version = 0 WHERE record_seq <= 3")
        let plan = "rederive derive --db \(db) --all --dry-run --plan plan.json"
        let apply = "rederive derive --db \(db) --apply-plan plan.json"
        let status = try rederive(["status", "--db", db])
        let check = try rederive(["status", "--db", db, "--check"])
        let html = dir.file("status.html")
        XCTAssertEqual(try rederive(["status", "--db", db, "--html", html]).status, 0)
        for text in [status.stdout, check.stdout + check.stderr] {
            XCTAssertTrue(text.contains(plan), text)
            XCTAssertTrue(text.contains(apply), text)
            XCTAssertFalse(text.contains("run `rederive derive` to refresh"), text)
            XCTAssertFalse(text.contains("run `rederive derive --db \(db)`"), text)
        }
        XCTAssertTrue(try String(contentsOfFile: html, encoding: .utf8).contains("--apply-plan plan.json"))
        let export = try rederive(["export", "--db", db, "-o", dir.file("s.jsonl")])
        XCTAssertEqual(export.status, ExitStatus.skippedRecords.rawValue, export.stderr)
        XCTAssertTrue(export.stderr.contains(apply), export.stderr)
        let show = try rederive(["show", id, "--db", db])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("--all --dry-run --plan plan.json"), show.stdout)
        XCTAssertFalse(show.stdout.contains("run `rederive derive` to refresh"), show.stdout)

        // Only records with no summary: nothing existing would change, a bare derive is right.
        XCTAssertEqual(try rederive(["derive", "--db", db, "--quiet"]).status, 0)
        try StoreInspection.execute(db, "DELETE FROM summary WHERE record_seq <= 2")
        let missing = try rederive(["status", "--db", db])
        XCTAssertTrue(missing.stdout.contains("run `rederive derive --db \(db)` to derive them"), missing.stdout)
        XCTAssertFalse(missing.stdout.contains("--apply-plan"), missing.stdout)
        let showMissing = try rederive(["show", id, "--db", db])
        XCTAssertTrue(showMissing.stdout.contains("stale: no summary (run `rederive derive"), showMissing.stdout)
    }

    /// #12: a plan made by a newer build (the fixed one), applied with the older installed
    /// binary, said "make a new plan with this build" (a plan that would undo the fix). It
    /// names the build that made it and says to run the plan with it. Plans record their build.
    func testAPlanFromANewerBuildSaysToUseThatBuild() throws {
        let db = dir.file("rooms.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/exports", "--db", db, "--quiet"]).status, 0)
        try StoreInspection.execute(db, "UPDATE summary SET summary_version = 0 WHERE record_seq <= 3")
        let planPath = dir.file("plan.json")
        let made = try rederive([
            "derive", "--db", db, "--all", "--dry-run", "--plan", planPath, "--preview-out", dir.file("preview"),
        ])
        XCTAssertEqual(made.status, 0, made.stderr)
        var plan = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: planPath))) as? [String: Any])
        XCTAssertEqual(plan["build"] as? String, RederiveVersion.build)

        // What a `make build-fixed` build writes into its plan.
        let fixed = SummaryDeriver.simulatedFixed
        plan["build"] = "0.9.0+simulated-fix"
        plan["summaryVersion"] = fixed.version
        plan["fingerprint"] = fixed.fingerprint
        try JSONSerialization.data(withJSONObject: plan).write(to: URL(fileURLWithPath: planPath))
        let before = try StoreInspection.dump(db)
        let older = try rederive(["derive", "--db", db, "--apply-plan", planPath])
        XCTAssertEqual(older.status, ExitStatus.refused.rawValue, older.stderr)
        XCTAssertTrue(
            older.stderr.contains(
                "this plan was made by build 0.9.0+simulated-fix (summary version \(SummaryDeriver.simulatedFixVersion)"
            ),
            older.stderr)
        XCTAssertTrue(older.stderr.contains("this binary is older"), older.stderr)
        XCTAssertTrue(older.stderr.contains("run the plan with that build"), older.stderr)
        XCTAssertFalse(older.stderr.contains("Make a new plan"), older.stderr)
        XCTAssertEqual(try StoreInspection.dump(db), before, "nothing written")
    }

    /// #26: an import of the same records with another `roomName` updates them, and the
    /// tally said "0 updated, 2 unchanged". It counts them as updated, on both engines.
    func testARenamedRecordCountsAsUpdated() throws {
        let lines = try String(
            contentsOf: RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports/rooms-v2.jsonl"), encoding: .utf8
        ).split(separator: "\n").prefix(2)
        XCTAssertEqual(lines.count, 2)
        let renamed = dir.file("upd.jsonl")
        try lines.map { $0.replacingOccurrences(of: "\"roomName\":\"", with: "\"roomName\":\"renamed-") }
            .joined(separator: "\n").appending("\n").write(toFile: renamed, atomically: true, encoding: .utf8)
        for (db, _) in try stores() {
            let r = try rederive(["import", renamed, "--db", db, "--json"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let counts = try XCTUnwrap(try json(r)["counts"] as? [String: Int])
            XCTAssertEqual(counts["updated"], 2, "\(db): \(counts)")
            XCTAssertEqual(counts["unchanged"], 0, "\(db): \(counts)")
            XCTAssertTrue(r.stderr.contains("2 updated"), r.stderr)
        }
    }

    /// #15: the max-changes refusal counted every rewrite as "would change" ("32 of 32") where
    /// the preview of the same store said "8 would change, 24 unchanged (version/fingerprint
    /// only)". Both now use the preview's words and agree.
    func testTheRefusalAndThePreviewCountAlike() throws {
        let db = dir.file("rooms.sqlite")
        XCTAssertEqual(try rederive(["import", "Fixtures/exports", "--db", db, "--quiet"]).status, 0)
        // 3 stale by version only (same values), 2 with a changed value.
        try StoreInspection.execute(db, "UPDATE summary SET summary_version = 0 WHERE record_seq <= 3")
        let four = "summary_json LIKE '%\"wall_count\":4,%' AND record_seq > 3"
        let changed = try StoreInspection.rows(db, "SELECT record_seq FROM summary WHERE \(four) LIMIT 2")
            .map { $0["record_seq"] as Int64 }
        XCTAssertEqual(changed.count, 2)
        try recordFourWallsAsFive(db, where: "record_seq IN (\(changed.map(String.init).joined(separator: ",")))")
        let refused = try rederive(["derive", "--db", db, "--max-changes", "0"])
        XCTAssertEqual(refused.status, ExitStatus.refused.rawValue, refused.stderr)
        XCTAssertTrue(
            refused.stderr.contains(
                "5 of 5 existing summaries would be rewritten (2 would change, 3 unchanged: version/fingerprint only)"),
            refused.stderr)
        let preview = try rederive(["derive", "--db", db, "--dry-run", "--preview-out", dir.file("p")])
        XCTAssertEqual(preview.status, 0, preview.stderr)
        XCTAssertTrue(
            preview.stderr.contains("5 examined, 2 would change, 3 unchanged (3 version/fingerprint only)"),
            preview.stderr)
    }
}
