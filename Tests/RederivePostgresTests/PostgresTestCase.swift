import Foundation
import XCTest

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// The set-up every PostgreSQL test shares: the throwaway cluster (`PostgresCluster`), a new
/// database on it (`url`) and a scratch folder (`dir`) for each test. Holds no test methods
/// (Linux XCTest does not run inherited ones); subclasses add theirs.
class PostgresTestCase: XCTestCase {
    /// The shared throwaway cluster.
    var cluster: PostgresCluster!
    /// A database of its own for this test.
    var url = ""
    /// This test's scratch folder.
    var dir: TemporaryDirectory!

    /// The committed fixture exports.
    var exports: String { RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path }

    override func setUpWithError() throws {
        try super.setUpWithError()
        PostgresStore.register()  // which text is a connection string is the engine's to say (libpq)
        cluster = try PostgresCluster.shared()
        url = try cluster.newDatabase()
        dir = try TemporaryDirectory()
    }

    override func tearDown() {
        dir = nil
        super.tearDown()
    }

    /// Imports the fixture exports into `url` through the command line.
    func importFixtures() throws {
        XCTAssertEqual(
            try CommandLineTool.run(["import", exports, "--db", url, "--quiet"], stderrPath: dir.file("import.err")), 0)
    }
}
