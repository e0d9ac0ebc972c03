import Foundation
import GRDB
import XCTest
@testable import RederiveCore

/// Stores filled from the committed fixtures (Fixtures/: 45 good records, 13 corrupt lines
/// and one truncated file, so 14 open failures), in a fresh temporary directory per test.
enum StoreFixtures {
    static var fixturesDirectory: String { RoomFixtures.repoRoot.appendingPathComponent("Fixtures").path }

    /// Imports every fixture export into a new store at `directory/rooms.sqlite`.
    static func importedStore(in directory: TemporaryDirectory) throws -> Store {
        let store = try Store(path: directory.file("rooms.sqlite"))
        let files = try ExportFiles.resolve([fixturesDirectory])
        let report = try ImportJob.run(ImportConfiguration(files: files, showProgress: false), store: store)
        XCTAssertEqual(report.statistics.recordsDone, 45, "fixture import")
        return store
    }

    /// Runs SQL against the store (tests only: to make records stale or missing).
    static func execute(_ store: Store, _ sql: String, _ arguments: StatementArguments = []) throws {
        try store.pool.write { try $0.execute(sql: sql, arguments: arguments) }
    }

    /// Fetches strings with SQL.
    static func strings(_ store: Store, _ sql: String) throws -> [String] {
        try store.pool.read { try String.fetchAll($0, sql: sql) }
    }
}
