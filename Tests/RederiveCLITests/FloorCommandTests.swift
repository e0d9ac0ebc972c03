import Foundation
import GRDB
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// `rederive floor` (hidden; `make bench`'s "derive vs floor"): it reads every raw room a
/// `derive --all` reads, in the derive's batches, whatever the number of threads.
final class FloorCommandTests: XCTestCase {
    private func floor(_ db: String, workers: Int, batchSize: Int, scratch: TemporaryDirectory) throws -> [String: Any]
    {
        let result = try CommandLineTool.invoke(
            ["floor", "--db", db, "--workers", "\(workers)", "--batch-size", "\(batchSize)"], scratch: scratch)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
    }

    func testItReadsEveryRecordADeriveAllReadsOnAnyNumberOfThreads() throws {
        let scratch = try TemporaryDirectory()
        let db = scratch.file("store.sqlite")
        let corpus = try GeneratedCorpus.path(records: 700, seed: 11, coreModelBytes: 200)
        let imported = try CommandLineTool.invoke(["import", corpus, "--db", db, "--quiet"], scratch: scratch)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let derive = try CommandLineTool.invoke(
            ["derive", "--db", db, "--all", "--rewrite", "--quiet", "--json"], scratch: scratch)
        XCTAssertEqual(derive.status, 0, derive.stderr)
        let run = try XCTUnwrap(try JSONSerialization.jsonObject(with: derive.stdoutData) as? [String: Any])
        let read = try XCTUnwrap((run["counts"] as? [String: Any])?["read"] as? Int)
        let stored = try DatabaseQueue(path: db).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM raw_room") }
        XCTAssertEqual(read, stored)

        let one = try floor(db, workers: 1, batchSize: 500, scratch: scratch)
        XCTAssertEqual(one["records"] as? Int, read)
        XCTAssertGreaterThan(one["elements"] as? Int ?? 0, read)
        for (workers, batchSize) in [(2, 500), (3, 7), (5, 1)] {
            let many = try floor(db, workers: workers, batchSize: batchSize, scratch: scratch)
            XCTAssertEqual(many["records"] as? Int, read, "\(workers) threads, batches of \(batchSize)")
            XCTAssertEqual(many["elements"] as? Int, one["elements"] as? Int)
            XCTAssertEqual(many["numbers"] as? Int, one["numbers"] as? Int)
            XCTAssertEqual(many["workers"] as? Int, workers)
        }
    }

    func testADamagedRawRoomIsNamedAndFails() throws {
        let scratch = try TemporaryDirectory()
        let db = scratch.file("store.sqlite")
        let corpus = try GeneratedCorpus.path(records: 50, seed: 12, coreModelBytes: 200)
        XCTAssertEqual(
            try CommandLineTool.invoke(["import", corpus, "--db", db, "--quiet"], scratch: scratch).status, 0)
        let seq = try DatabaseQueue(path: db).write { db -> Int64 in
            let seq = try XCTUnwrap(try Int64.fetchOne(db, sql: "SELECT MAX(record_seq) FROM raw_room"))
            try db.execute(
                sql: "UPDATE raw_room SET skeleton = CAST('{\"walls\":7}' AS BLOB) WHERE record_seq = ?",
                arguments: [seq])
            return seq
        }
        let result = try CommandLineTool.invoke(["floor", "--db", db], scratch: scratch)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("record \(seq)"), result.stderr)
    }
}
