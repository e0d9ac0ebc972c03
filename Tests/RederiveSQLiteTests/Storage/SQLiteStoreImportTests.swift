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

    /// A batch with a raw room larger than that cache (one record of tens of MB) is written with
    /// SQLite's default cache: the larger one's pages are given back first, so such a record costs
    /// no more memory than before.
    func testABatchOfHugeRoomsGoesBackToTheDefaultCache() throws {
        let dir = try TemporaryDirectory()
        let processor = RecordProcessor(deriver: SummaryDeriver())
        func items(records: Int, coreModelBytes: Int) throws -> [ImportItem] {
            let export = dir.file("\(records).jsonl")
            var options = CorpusGenerator.Options(records: records, seed: 5)
            options.coreModelBytes = coreModelBytes
            options.formatMix = CorpusGenerator.FormatMix(v1: 0, v2: 0, v3: 1)
            options.collectLines = false
            try ExportFixtures.writeGenerated(options, to: export)
            let reader = try ExportReader(path: export)
            return reader.nextLines(maxLines: .max, maxBytes: .max).map { processor.importItem(line: $0, file: export) }
        }
        let bulk = try items(records: 150, coreModelBytes: 100_000)
        let huge = try items(records: 1, coreModelBytes: 20_000_000)
        XCTAssertEqual(SQLiteStore.importCacheKiB(for: bulk), SQLiteStore.importCacheKiB)
        XCTAssertEqual(SQLiteStore.importCacheKiB(for: huge), 2_000)
        XCTAssertEqual(SQLiteStore.importCacheKiB(for: bulk + huge), 2_000)
        XCTAssertEqual(SQLiteStore.importCacheKiB(for: []), SQLiteStore.importCacheKiB)
    }
}
