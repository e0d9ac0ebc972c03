import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveSQLite

/// `StoreContract` against the embedded SQLite engine (a temporary file).
final class SQLiteStoreContractTests: StoreContract {
    override func makeLocation() throws -> String {
        Store.register()
        return dir.file("contract.sqlite")
    }

    override func execute(_ sql: String) throws {
        let store = try Store(path: location, mode: .existing)
        defer { store.close() }
        try StoreFixtures.execute(store, sql)
    }

    func testImportDecisions() throws { try contractImportDecisions() }
    func testImportProgressMidRun() throws { try contractImportProgressMidRun() }
    func testFreshnessSQLEqualsClassification() throws { try contractFreshnessSQLEqualsClassification() }
    func testDeriveSelectionAndWrites() throws { try contractDeriveSelectionAndWrites() }
    func testNewerSummariesLeftAlone() throws { try contractNewerSummariesLeftAlone() }
    func testLedgerOpensAndClears() throws { try contractLedgerOpensAndClears() }
    func testHistoryAndRevert() throws { try contractHistoryAndRevert() }
    func testExportPagingUnderChanges() throws { try contractExportPagingUnderChanges() }
    func testStaleGaugeEqualsStatus() throws { try contractStaleGaugeEqualsStatus() }
    func testRunStartUnlessCompleted() throws { try contractRunStartUnlessCompleted() }
    func testRunStartReopensWithSavedTotals() throws { try contractRunStartReopensWithSavedTotals() }
    func testRunStartWhereRunsAreShared() throws { try contractRunStartWhereRunsAreShared() }
    func testSelectionPredicate() throws { try contractSelectionPredicate() }
}
