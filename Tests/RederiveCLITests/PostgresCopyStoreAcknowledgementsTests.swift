import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `copy-store` from SQLite to a real PostgreSQL server (`PostgresCluster`) carries the
/// failure acknowledgements and the faulted files (`CopyStoreAcknowledgementsTests.scenario`).
final class PostgresCopyStoreAcknowledgementsTests: XCTestCase {
    func testCopyToPostgresKeepsAcknowledgementsAndFaultedFiles() throws {
        let cluster = try PostgresCluster.shared()
        let dir = try TemporaryDirectory()
        try CopyStoreAcknowledgementsTests.scenario(destination: try cluster.newDatabase(), scratch: dir)
    }
}
