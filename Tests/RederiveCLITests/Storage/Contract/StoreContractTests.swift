import XCTest

/// Every `StoreContract` scenario, each run on every engine of `ContractEngine.all` (one that
/// needs a capability, on every engine whose `StoreEngine` declares it).
final class StoreContractTests: XCTestCase {
    func testImportDecisions() throws { try StoreContract.onEveryEngine { try $0.contractImportDecisions() } }
    func testImportProgressMidRun() throws { try StoreContract.onEveryEngine { try $0.contractImportProgressMidRun() } }
    func testFreshnessSQLEqualsClassification() throws {
        try StoreContract.onEveryEngine { try $0.contractFreshnessSQLEqualsClassification() }
    }
    func testDeriveSelectionAndWrites() throws {
        try StoreContract.onEveryEngine { try $0.contractDeriveSelectionAndWrites() }
    }
    func testNewerSummariesLeftAlone() throws {
        try StoreContract.onEveryEngine { try $0.contractNewerSummariesLeftAlone() }
    }
    func testLedgerOpensAndClears() throws { try StoreContract.onEveryEngine { try $0.contractLedgerOpensAndClears() } }
    func testHistoryAndRevert() throws { try StoreContract.onEveryEngine { try $0.contractHistoryAndRevert() } }
    func testExportPagingUnderChanges() throws {
        try StoreContract.onEveryEngine { try $0.contractExportPagingUnderChanges() }
    }
    func testStaleGaugeEqualsStatus() throws {
        try StoreContract.onEveryEngine { try $0.contractStaleGaugeEqualsStatus() }
    }
    func testRunStartUnlessCompleted() throws {
        try StoreContract.onEveryEngine { try $0.contractRunStartUnlessCompleted() }
    }
    func testRunStartReopensWithSavedTotals() throws {
        try StoreContract.onEveryEngine { try $0.contractRunStartReopensWithSavedTotals() }
    }
    func testRunStartWhereRunsAreShared() throws {
        try StoreContract.onEveryEngine { try $0.contractRunStartWhereRunsAreShared() }
    }
    func testSelectionPredicate() throws { try StoreContract.onEveryEngine { try $0.contractSelectionPredicate() } }
    func testAcknowledgementsAndFaultedFiles() throws {
        try StoreContract.onEveryEngine { try $0.contractAcknowledgementsAndFaultedFiles() }
    }
    func testInspectAndRawRoom() throws { try StoreContract.onEveryEngine { try $0.contractInspectAndRawRoom() } }
    func testPruneHistory() throws { try StoreContract.onEveryEngine { try $0.contractPruneHistory() } }
    func testCopyStoreWithHistory() throws { try StoreContract.onEveryEngine { try $0.contractCopyStoreWithHistory() } }
    func testNewerSchemaRefused() throws { try StoreContract.onEveryEngine { try $0.contractNewerSchemaRefused() } }
    func testRangeClaims() throws {
        try StoreContract.onEveryEngine(with: \.sharedRangeClaims) { try $0.contractRangeClaims() }
    }
}
