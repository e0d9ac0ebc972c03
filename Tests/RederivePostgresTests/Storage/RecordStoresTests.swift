import Foundation
import Synchronization
import XCTest

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveSQLite
@testable import RederiveTestSupport

/// The core chooses an engine in one place, `RecordStores`, and knows none itself: a path
/// goes to the registered file engine, a connection string to the registered server engine,
/// whatever they are. Each test registers fakes and puts the real engines back.
final class RecordStoresTests: XCTestCase {
    override func setUp() {
        SQLiteStore.register()
        PostgresStore.register()
    }

    override func tearDown() {
        SQLiteStore.register()
        PostgresStore.register()
    }

    func testAPathGoesToTheRegisteredFileEngine() {
        let seen = Mutex<[String]>([])
        RecordStores.register(
            StoreEngine(
                name: "SQLite", capabilities: .init(localFile: true, singleWriterLockFile: true),
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
        SQLiteStore.register()
        XCTAssertEqual(RederiveVersion.storeSchema, SQLiteStore.schemaVersion)
        let dir = try TemporaryDirectory()
        let store = try RecordStores.open(dir.file("rooms.sqlite"), mode: .createIfMissing)
        defer { store.close() }
        XCTAssertTrue(store is SQLiteStore)
    }

    func testAConnectionStringIsWhatTheServerEngineSays() {
        RecordStores.register(
            StoreEngine(
                name: "PostgreSQL", capabilities: .init(sharedRangeClaims: true), recognizes: { $0.hasPrefix("fake=") },
                redact: { _ in "fake://(redacted)" },
                open: { conninfo, _ throws(RederiveError) in throw .usage("fake server \(conninfo)") }))
        XCTAssertEqual(StoreLocation("fake=1 password=x").engine?.name, "PostgreSQL")
        XCTAssertEqual(StoreLocation("host=db dbname=x").engine?.name, "SQLite")
        XCTAssertEqual(RecordStores.redacted("fake=1 password=x"), "fake://(redacted)")
        XCTAssertThrowsError(try RecordStores.open("fake=1", mode: .existing)) { error in
            XCTAssertEqual(error as? RederiveError, .usage("fake server fake=1"))
        }
        PostgresStore.register()
        XCTAssertEqual(StoreLocation("host=db dbname=x").engine?.name, "PostgreSQL")
        XCTAssertFalse(RecordStores.redacted("host=db dbname=x password=secret").contains("secret"))
    }

    /// Any number of engines: a third one (a fake "DuckDB" reading `duck://` URLs and its own
    /// `duck:` texts) is chosen by its scheme or its own parse, shown and asked for secrets as
    /// it says, and its capabilities decide locks and range claims; the others are unchanged.
    func testAThirdEngineIsOneRegistration() {
        RecordStores.register(
            StoreEngine(
                name: "DuckDB", schemes: ["duck"], capabilities: .init(singleWriterLockFile: true),
                recognizes: { $0.hasPrefix("duck:") }, normalize: { $0.lowercased() },
                redact: { _ in "duck://(hidden)" }, holdsPassword: { $0.contains("secret") },
                open: { location, _ throws(RederiveError) in throw .usage("duck opened \(location)") }))
        defer { RecordStores.unregister("DuckDB") }
        XCTAssertEqual(RecordStores.registered.map(\.name), ["PostgreSQL", "DuckDB", "SQLite"])
        let url = StoreLocation("duck://Host/Rooms")
        XCTAssertEqual(url.engine?.name, "DuckDB")
        XCTAssertEqual(url.text, "duck://host/rooms")
        XCTAssertTrue(url.holdsRunLockFile)
        XCTAssertFalse(url.claimsRanges)
        XCTAssertNil(url.filePath)
        XCTAssertEqual(StoreLocation("duck:rooms").engine?.name, "DuckDB")
        XCTAssertEqual(RecordStores.redacted("duck://u:secret@h/rooms"), "duck://(hidden)")
        XCTAssertTrue(RecordStores.holdsPassword("duck://u:secret@h/rooms"))
        XCTAssertThrowsError(try RecordStores.open("duck://X", mode: .readOnly)) { error in
            XCTAssertEqual(error as? RederiveError, .usage("duck opened duck://x"))
        }
        XCTAssertEqual(StoreLocation("rooms.sqlite").engine?.name, "SQLite")
        XCTAssertTrue(StoreLocation("postgres://h/db").claimsRanges)
        XCTAssertThrowsError(try RecordStores.open("foo://x", mode: .readOnly)) { error in
            XCTAssertEqual(
                error as? RederiveError,
                .usage("foo://: no store engine for this scheme (postgres:// or duck:// or a path)"))
        }
    }

    func testAnUnknownSchemeNamesTheRegisteredOnes() {
        XCTAssertThrowsError(try RecordStores.open("mysql://u:pw@h/db", mode: .readOnly)) { error in
            XCTAssertEqual(
                error as? RederiveError, .usage("mysql://: no store engine for this scheme (postgres:// or a path)"))
        }
        XCTAssertEqual(RecordStores.redacted("mysql://u:pw@h/db"), "mysql://(not shown)")
    }
}
