import Foundation
import Synchronization
import XCTest

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveSQLite

/// The core chooses an engine in one place, `RecordStores`, and knows none itself: a path
/// goes to the registered file engine, a connection string to the registered server engine,
/// whatever they are. Each test registers fakes and puts the real engines back.
final class RecordStoresTests: XCTestCase {
    override func tearDown() {
        Store.register()
        PostgresStore.register()
    }

    func testAPathGoesToTheRegisteredFileEngine() {
        let seen = Mutex<[String]>([])
        RecordStores.register(
            files: RecordStores.FileEngine(
                schemaVersion: "fake-v9",
                check: { path, mode throws(RederiveError) in seen.withLock { $0.append("check \(path) \(mode)") } },
                open: { path, _ throws(RederiveError) in throw .usage("fake engine opened \(path)") }))
        XCTAssertEqual(RecordStores.fileSchemaVersion, "fake-v9")
        XCTAssertEqual(RederiveVersion.storeSchema, "fake-v9")
        XCTAssertNoThrow(try RecordStores.check("out/rooms.sqlite", mode: .existing))
        XCTAssertThrowsError(try RecordStores.open("out/rooms.sqlite", mode: .readOnly)) { error in
            XCTAssertEqual(error as? RederiveError, .usage("fake engine opened out/rooms.sqlite"))
        }
        XCTAssertEqual(seen.withLock { $0 }, ["check out/rooms.sqlite existing"])
    }

    func testTheSQLiteEngineRegistersItsSchemaAndOpensFiles() throws {
        Store.register()
        XCTAssertEqual(RederiveVersion.storeSchema, Store.schemaVersion)
        let dir = try TemporaryDirectory()
        let store = try RecordStores.open(dir.file("rooms.sqlite"), mode: .createIfMissing)
        defer { store.close() }
        XCTAssertTrue(store is Store)
    }

    func testAConnectionStringIsWhatTheServerEngineSays() {
        RecordStores.register(
            server: RecordStores.ServerEngine(
                recognizes: { $0.hasPrefix("fake=") }, redact: { _ in "fake://(redacted)" },
                open: { conninfo, _ throws(RederiveError) in throw .usage("fake server \(conninfo)") }))
        XCTAssertEqual(StoreLocation("fake=1 password=x"), .server(conninfo: "fake=1 password=x"))
        XCTAssertEqual(StoreLocation("host=db dbname=x"), .sqlite(path: "host=db dbname=x"))
        XCTAssertEqual(RecordStores.redacted("fake=1 password=x"), "fake://(redacted)")
        XCTAssertThrowsError(try RecordStores.open("fake=1", mode: .existing)) { error in
            XCTAssertEqual(error as? RederiveError, .usage("fake server fake=1"))
        }
        PostgresStore.register()
        XCTAssertEqual(StoreLocation("host=db dbname=x"), .server(conninfo: "host=db dbname=x"))
        XCTAssertFalse(RecordStores.redacted("host=db dbname=x password=secret").contains("secret"))
    }
}
