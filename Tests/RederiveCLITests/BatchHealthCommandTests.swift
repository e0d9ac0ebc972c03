import Foundation
import GRDB
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Issue 34 #5 on SQLite, through the binary: a derive keeps the health each batch saw at its
/// claim and its commit, logs the throttle's state once per change (not per batch), and
/// `status --run N` (text, `--json`, `--html`) and the metrics file show it.
final class BatchHealthCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    private func store() throws -> String {
        let corpus = try GeneratedCorpus.path(records: 400, seed: 34, coreModelBytes: 200)
        let db = dir.file("store.sqlite")
        XCTAssertEqual(try rederive(["import", corpus, "--db", db, "-q"]).status, 0)
        return db
    }

    private static let derive = ["derive", "--all", "--rewrite", "--batch-size", "40", "--workers", "1"]

    /// The WAL's red limit at 0 makes every reading red: observe mode says once that it would
    /// wait, keeps that with every batch, and changes nothing.
    func testEveryBatchKeepsItsHealthAndStatusAndTheMetricsShowIt() throws {
        let db = try store()
        let metrics = dir.file("derive.prom")
        let run = try rederive(
            Self.derive + [
                "--db", db, "--throttle", "observe", "--health-limit", "wal_file_bytes=0,0", "--metrics-file",
                metrics,
            ])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(
            run.stderr.components(separatedBy: "would wait: WAL file size").count - 1, 1,
            "logged once per change, not per batch: \(run.stderr)")
        let runID = try StoreInspection.int(db, "SELECT max(run_id) FROM run_batch")
        let rows = try StoreInspection.rows(
            db, "SELECT claim_health, commit_health, wait_reason FROM run_batch WHERE run_id = ? ORDER BY id", [runID])
        XCTAssertEqual(rows.count, 10, "400 records in batches of 40")
        for row in rows {
            let claim = try XCTUnwrap(BatchHealth(json: row["claim_health"]), "\(row)")
            let commit = try XCTUnwrap(BatchHealth(json: row["commit_health"]), "\(row)")
            XCTAssertEqual(claim.grade, "red")
            let wal = try XCTUnwrap(claim.signals.first { $0.signal == "wal_file_bytes" })
            XCTAssertEqual(wal.grade, "red")
            XCTAssertEqual(wal.red, 0)
            XCTAssertNotNil(wal.value)
            XCTAssertNotNil(commit["wal_file_bytes"])
            XCTAssertNil(commit.signals.first?.red, "the commit does not repeat the limits")
            XCTAssertEqual(
                (row["wait_reason"] as String?)?.hasPrefix("would wait: health: WAL file size "), true, "\(row)")
        }

        let text = try rederive(["status", "--db", db, "--run", String(runID)])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("health         per batch at its claim and its commit"), text.stdout)
        XCTAssertTrue(text.stdout.contains("wal_file_bytes 0/0"), text.stdout)
        XCTAssertTrue(
            text.stdout.split(separator: "\n").contains { $0.contains(" commit ") && $0.contains("!!") }, text.stdout)
        let json = try rederive(["status", "--db", db, "--run", String(runID), "--json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        let batches = try XCTUnwrap(object["batches"] as? [[String: Any]])
        let claim = try XCTUnwrap(batches.first?["claimHealth"] as? [String: Any])
        XCTAssertEqual(claim["grade"] as? String, "red")
        let signals = try XCTUnwrap(claim["signals"] as? [[String: Any]])
        XCTAssertEqual(signals.map { $0["signal"] as? String }, HealthSignal.file.map(\.rawValue))
        let page = dir.file("run.html")
        let html = try rederive(["status", "--db", db, "--run", String(runID), "--html", page])
        XCTAssertEqual(html.status, 0, html.stderr)
        let ids = try XHTML.parse(try String(contentsOfFile: page, encoding: .utf8))
        for id in ["chart-batch-size", "chart-batch-time", "chart-health-0", "chart-health-1"] {
            XCTAssertTrue(ids.contains(id), id)
        }

        let prom = try String(contentsOfFile: metrics, encoding: .utf8)
        let labels = "pipeline=\"\",stage=\"derive\",command=\"derive\""
        XCTAssertTrue(prom.contains("rederive_health_grade{\(labels),mode=\"observe\"} 2"), prom)
        XCTAssertTrue(prom.contains("rederive_health_waiting{\(labels),signal=\"wal_file_bytes\",reason=\"WAL"), prom)
        XCTAssertTrue(prom.contains("rederive_health_wait_seconds{\(labels)} 0"), "observe waits nothing: \(prom)")
        XCTAssertTrue(prom.contains("rederive_health_signal_value{\(labels),signal=\"wal_file_bytes\"}"), prom)
        XCTAssertEqual(PromLint.problems(prom), [])
    }

    /// `--throttle off` reads nothing and keeps nothing; the text shows no health table.
    func testWithTheThrottleOffNoHealthIsKept() throws {
        let db = try store()
        let metrics = dir.file("off.prom")
        XCTAssertEqual(
            try rederive(Self.derive + ["--db", db, "--throttle", "off", "--metrics-file", metrics, "-q"]).status, 0)
        XCTAssertEqual(
            try StoreInspection.int(
                db, "SELECT count(*) FROM run_batch WHERE claim_health IS NOT NULL OR commit_health IS NOT NULL"), 0)
        let runID = try StoreInspection.int(db, "SELECT max(run_id) FROM run_batch")
        let text = try rederive(["status", "--db", db, "--run", String(runID)])
        XCTAssertFalse(text.stdout.contains("health "), text.stdout)
        XCTAssertFalse(try String(contentsOfFile: metrics, encoding: .utf8).contains("rederive_health"))
    }
}
