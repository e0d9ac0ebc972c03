import XCTest
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// The faulted-file scenario of `FaultedFileCommandTests` on a PostgreSQL store.
final class PostgresFaultedFileTests: XCTestCase {
    func testAFaultedFileIsReadOnceUntilItChangesOrIsRetried() throws {
        let url = try PostgresCluster.shared().newDatabase()
        try FaultedFileCommandTests.checkFaultedFiles(db: url, dir: try TemporaryDirectory())
    }
}
