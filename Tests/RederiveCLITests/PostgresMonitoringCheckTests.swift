import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `status --check` with acknowledgements, thresholds and a window on a PostgreSQL store
/// (`PostgresCluster`): the same scenario as SQLite's `MonitoringCheckCommandTests`.
final class PostgresMonitoringCheckTests: XCTestCase {
    func testCheckClearsAfterAcknowledgement() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.newDatabase()
        let dir = try TemporaryDirectory()
        try MonitoringCheckCommandTests.scenario(db: url, scratch: dir) { _ = try cluster.sql($0, url: url) }
        XCTAssertEqual(
            try cluster.sql("SELECT name FROM schema_migration WHERE name = 'pg-v3-failure-ack'", url: url),
            ["pg-v3-failure-ack"])
    }
}
