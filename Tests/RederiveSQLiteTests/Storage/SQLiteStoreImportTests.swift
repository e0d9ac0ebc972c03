import Foundation
import GRDB
import GRDBSQLite
import RederiveCorpus
import XCTest

@testable import RederiveCore
@testable import RederiveEngineTestSupport
@testable import RederiveSQLite
@testable import RederiveTestSupport

/// `SQLiteStore.writeImportBatch`'s page cache (`importCacheKiB`): a batch of raw rooms stays in the
/// writer's cache until it commits: no page is spilled into the WAL in the middle of the transaction
/// (SQLite's default cache spilled 220 pages here, and read the tables' pages it pushed out back).
final class SQLiteStoreImportTests: XCTestCase {
    /// One of the writer connection's counters (`sqlite3_db_status`), since it opened.
    private static func status(_ db: Database, _ counter: Int32) -> Int32 {
        var current: Int32 = 0
        var highest: Int32 = 0
        sqlite3_db_status(db.sqliteConnection, counter, &current, &highest, 0)
        return current
    }

    func testAnImportBatchSpillsNoPageIntoTheWAL() throws {
        let dir = try TemporaryDirectory()
        let export = dir.file("bulk.jsonl")
        var options = CorpusGenerator.Options(records: 120, seed: 5)
        options.coreModelBytes = 100_000
        options.collectLines = false
        try ExportFixtures.writeGenerated(options, to: export)
        let store = try SQLiteStore(path: dir.file("s.sqlite"))
        defer { store.close() }
        // Batches of 60 records of ~100 KB (~6 MB each), three times SQLite's default cache of 2 MB.
        let report = try StoreFixtures.importFiles([export], into: store, batchSize: 60)
        XCTAssertEqual(report.statistics.recordsDone, 120)
        let (spilled, cache) = try store.pool.write { db in
            (Self.status(db, SQLITE_DBSTATUS_CACHE_SPILL), try Int.fetchOne(db, sql: "PRAGMA cache_size"))
        }
        XCTAssertEqual(spilled, 0, "no page written into the WAL before its batch commits")
        XCTAssertEqual(cache, -SQLiteStore.importCacheKiB, "the writer keeps the import's cache")
    }
}
