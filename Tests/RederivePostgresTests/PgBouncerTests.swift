import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// The PostgreSQL engine through a real PgBouncer in transaction pooling mode (issue 17
/// item 5): each transaction may run on another server connection, so nothing may outlive
/// one (no session `SET`, no named prepared statements, no session advisory locks). An
/// import, then a derive of two worker processes (more client connections than the pool's three server
/// connections), go through it with every record derived exactly once.
final class PgBouncerTests: XCTestCase {
    func testImportAndATwoProcessDeriveThroughTransactionPooling() throws {
        let cluster = try PostgresCluster.shared()
        guard let port = try cluster.pgBouncer(poolSize: 3) else {
            throw XCTSkip(
                "pgbouncer is not installed and could not be (make deps installs it: apt-get install pgbouncer)")
        }
        let direct = try cluster.newDatabase()
        let name = String(direct.split(separator: "/").last!)
        let url = "postgres://postgres@127.0.0.1:\(port)/\(name)"
        let dir = try TemporaryDirectory()
        func rederive(_ arguments: [String]) throws -> CommandLineResult {
            try CommandLineTool.invoke(arguments, scratch: dir)  // in the repository (generate reads Fixtures/)
        }
        let corpus = dir.file("corpus.jsonl.zst")
        let generated = try rederive(
            ["generate", "--out", corpus, "--records", "300", "--seed", "4", "--core-model-bytes", "300", "--quiet"])
        XCTAssertEqual(generated.status, 0, generated.stderr)
        let imported = try rederive(["import", corpus, "--db", url, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM record", database: name), ["300"])
        try cluster.slowSummaryWrites(database: name)
        let derived = try rederive([
            "derive", "--db", url, "--all", "--rewrite", "--processes", "2", "--workers", "1", "--batch-size", "10",
            "--quiet",
        ])
        XCTAssertEqual(derived.status, 0, derived.stderr)
        XCTAssertEqual(
            try cluster.sql("SELECT count(*) FROM derive_range WHERE state <> 'done' OR attempt <> 1", database: name),
            ["0"])
        XCTAssertEqual(try cluster.sql("SELECT sum(records_read) FROM derive_range", database: name), ["300"])
        let workers = try cluster.sql("SELECT count(DISTINCT claimed_by) FROM derive_range", database: name)[0]
        XCTAssertGreaterThan(Int(workers) ?? 0, 1, "more than one worker claimed ranges")
        let run = try cluster.sql("SELECT max(run_id) FROM derive_range", database: name)[0]
        XCTAssertEqual(try cluster.sql("SELECT count(*) FROM summary WHERE run_id <> \(run)", database: name), ["0"])
        let status = try rederive(["status", "--db", url])
        XCTAssertEqual(status.status, 0, status.stderr)
    }
}
