import Foundation
import XCTest

/// Every engine's contract subclass runs every scenario: each declares `test<Scenario>`
/// calling `contract<Scenario>` for each of `StoreContract.scenarios`, and the base class
/// has a body for each (read from the sources, since XCTest on Linux lists no inherited tests).
final class StoreContractListTests: XCTestCase {
    private let folder = RoomFixtures.repoRoot.appendingPathComponent("Tests/RederiveCoreTests/Storage/Contract")

    func testEverySubclassRunsEveryScenario() throws {
        let base = try String(contentsOf: folder.appendingPathComponent("StoreContract.swift"), encoding: .utf8)
        let subclasses = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix("StoreContractTests.swift") }.sorted()
        XCTAssertEqual(subclasses, ["PostgresStoreContractTests.swift", "SQLiteStoreContractTests.swift"])
        let scenarios = Set(
            base.matches(of: /func contract(\w+)\(\)/).map { String($0.1) })
        XCTAssertEqual(scenarios, Set(StoreContract.scenarios), "StoreContract.scenarios lists every body")
        for file in subclasses {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for name in StoreContract.scenarios {
                XCTAssertTrue(
                    text.contains("func test\(name)() throws { try contract\(name)() }"), "\(file) runs \(name)")
            }
        }
    }
}
