import Foundation
import XCTest

@testable import RederiveCore
@testable import RederivePostgres

/// `StoreContract` against the PostgreSQL engine (a new database in the tests' throwaway
/// cluster, `PostgresCluster`).
final class PostgresStoreContractTests: StoreContract {
    private var cluster: PostgresCluster!

    override func makeLocation() throws -> String {
        PostgresStore.register()
        cluster = try PostgresCluster.shared()
        return try cluster.newDatabase()
    }

    override func execute(_ sql: String) throws { _ = try cluster.sql(sql, url: location) }

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
