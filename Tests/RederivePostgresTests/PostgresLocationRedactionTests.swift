import XCTest
@testable import RederiveCore
@testable import RederivePostgres
import RederiveSQLite

/// The one redacted form of a store location (`RecordStores.redacted`), built from the
/// connection options the PostgreSQL engine parses: the password never survives, whatever it
/// holds, and nothing else of a URL that does not parse is shown.
final class PostgresLocationRedactionTests: XCTestCase {
    override func setUp() {
        PostgresStore.register()
        SQLiteStore.register()
    }

    func testAPercentEncodedPasswordAndEveryParameterButTheShownOnesAreLeftOut() {
        XCTAssertEqual(
            RecordStores.redacted(
                "postgres://u:p%40ss%3Aw%2Fd%25x@db.example:6432/rooms?sslmode=require&password=zz&connect_timeout=2"),
            "postgres://u@db.example:6432/rooms?sslmode=require")
        XCTAssertEqual(RecordStores.redacted("postgresql://u:secret@h:5/db"), "postgres://u@h:5/db")
    }

    func testAPasswordWithAnAtIsLeftOutWhole() {
        // A regex that stops at the first `@` kept `postgres://atuser@ssW0rd@…`.
        XCTAssertEqual(
            RecordStores.redacted("postgres://atuser:p@ssW0rd@127.0.0.1:5432/atdb"),
            "postgres://atuser@127.0.0.1:5432/atdb")
    }

    func testAURLThatDoesNotParseShowsNoneOfItself() {
        let shown = RecordStores.redacted("postgres://u:a@b:c/d%25e@127.0.0.1:5432/db")
        XCTAssertFalse(shown.contains("a@b"), shown)
        XCTAssertFalse(shown.contains("d%25e"), shown)
        XCTAssertFalse(shown.contains("127.0.0.1"), shown)
        XCTAssertEqual(RecordStores.redacted("foo://u:secret@h/db"), "foo://(not shown)")
    }

    func testEveryLibpqFormIsShownWithoutItsPassword() {
        XCTAssertEqual(
            RecordStores.redacted("host=db.example port=6432 dbname=rooms user=u password='s3 cr@t' sslmode=require"),
            "postgres://u@db.example:6432/rooms?sslmode=require")
        XCTAssertEqual(
            RecordStores.redacted("postgresql://u:pw@h1:5432,h2:5433/rooms?target_session_attrs=read-write"),
            "postgres://u@h1:5432,h2:5433/rooms?target_session_attrs=read-write")
        XCTAssertEqual(
            RecordStores.redacted("postgresql://u:pw@/rooms?host=/var/run/postgresql&port=5433"),
            "postgres://u@/rooms?host=/var/run/postgresql&port=5433")
        XCTAssertEqual(RecordStores.redacted("service=rooms password=pw"), "postgres:///?service=rooms")
        XCTAssertEqual(RecordStores.redacted("postgres://u@[::1]:5432/db"), "postgres://u@[::1]:5432/db")
    }

    func testEveryHostOfAMultiHostFormIsShownWithItsPort() {
        XCTAssertEqual(
            RecordStores.redacted(
                "host=h1,h2 port=5433,5434 dbname=rooms user=u password=secret target_session_attrs=read-write "
                    + "connect_timeout=2"),
            "postgres://u@h1:5433,h2:5434/rooms?target_session_attrs=read-write")
        // One port for every host, as libpq reads it.
        XCTAssertEqual(
            RecordStores.redacted("host=h1,h2 port=6000 dbname=rooms user=u"), "postgres://u@h1:6000,h2:6000/rooms")
        XCTAssertEqual(
            RecordStores.redacted("postgresql://u:secret@h1,h2:5433/rooms?connect_timeout=2"),
            "postgres://u@h1:5432,h2:5433/rooms")
    }

    func testWhatLibpqReadsDecidesServerOrFile() {
        XCTAssertTrue(StoreLocation("host=127.0.0.1 dbname=rooms").claimsRanges)
        XCTAssertTrue(StoreLocation("service=rooms").claimsRanges)
        XCTAssertTrue(StoreLocation("postgresql://u@/rooms?host=/tmp").claimsRanges)
        XCTAssertEqual(StoreLocation("out/rooms.sqlite").filePath, "out/rooms.sqlite")
        XCTAssertEqual(StoreLocation("rooms=1.sqlite").filePath, "rooms=1.sqlite")  // no libpq keyword
        XCTAssertNil(StoreLocation("foo://x").engine)
        XCTAssertEqual(StoreLocation("foo://x").redacted, "foo://(not shown)")
        XCTAssertTrue(StoreLocation("out/rooms.sqlite").holdsRunLockFile)
        XCTAssertFalse(StoreLocation("dbname=rooms").holdsRunLockFile)
        XCTAssertFalse(StoreLocation("out/rooms.sqlite").claimsRanges)
        // An unencoded `@` in the password is encoded for libpq (the last `@` ends the user part).
        XCTAssertEqual(StoreLocation("postgres://u:p@ss@h/db").text, "postgres://u:p%40ss@h/db")
        XCTAssertTrue(RecordStores.holdsPassword("postgres://u:p@ss@h/db"))
        XCTAssertTrue(RecordStores.holdsPassword("host=h dbname=d password=x"))
        XCTAssertFalse(RecordStores.holdsPassword("postgres://u@h/db"))
        XCTAssertFalse(RecordStores.holdsPassword("out/password=x.sqlite"))
    }

    func testAFilePathIsShownAsItIs() {
        XCTAssertEqual(RecordStores.redacted("out/rooms:1@2.sqlite"), "out/rooms:1@2.sqlite")
    }

    func testAnErrorAboutTheURLNamesItRedacted() throws {
        let failure = Result { () throws(RederiveError) in
            try RecordStores.open("postgres://u:s3cret@h/db?sslmode=x", mode: .readOnly)
        }
        guard case .failure(let error) = failure else { return XCTFail("opened") }
        XCTAssertTrue(
            "\(error)".contains("postgres://u@h:5432/db?sslmode=x: invalid sslmode value: \"x\""), "\(error)")
        XCTAssertFalse("\(error)".contains("s3cret"), "\(error)")
    }

    /// S12: what a suggested command (`--apply-plan`, `revert`) names keeps how the server is
    /// reached and checked, so pasting it does not downgrade `verify-full` to `prefer`.
    func testTheNonSecretConnectionOptionsAreKept() throws {
        let given =
            "postgres://u:pw@127.0.0.1:25432/rdb?sslmode=verify-full&target_session_attrs=read-write"
            + "&sslrootcert=/etc/ssl/db-ca.pem&application_name=x&connect_timeout=3"
        let shown = RecordStores.redacted(given)
        XCTAssertEqual(
            shown,
            "postgres://u@127.0.0.1:25432/rdb?sslmode=verify-full&sslrootcert=/etc/ssl/db-ca.pem"
                + "&target_session_attrs=read-write")
        let reread = try XCTUnwrap(PostgresConninfo.libpqOptions(shown))
        let original = try XCTUnwrap(PostgresConninfo.libpqOptions(given))
        for keyword in ["host", "port", "dbname", "user", "sslmode", "sslrootcert", "target_session_attrs"] {
            XCTAssertEqual(reread[keyword], original[keyword], keyword)
        }
        XCTAssertNil(reread["password"])
    }

    /// S12: a socket folder holding `&` stays one value (it became `&sslmode=disable`), and
    /// the `hostaddr` libpq connects to is shown.
    func testAValueHoldingQuerySyntaxStaysOneValue() throws {
        let given = "host='/tmp/a&sslmode=disable' hostaddr=127.0.0.1 port=25432 dbname=rdb user=u password=pw"
        let shown = RecordStores.redacted(given)
        XCTAssertEqual(shown, "postgres://u@/rdb?host=/tmp/a%26sslmode%3Ddisable&port=25432&hostaddr=127.0.0.1")
        let reread = try XCTUnwrap(PostgresConninfo.libpqOptions(shown))
        XCTAssertEqual(reread["host"], "/tmp/a&sslmode=disable")
        XCTAssertEqual(reread["hostaddr"], "127.0.0.1")
        XCTAssertNil(reread["sslmode"])
        XCTAssertFalse(shown.contains("pw"), shown)
        let named = RecordStores.redacted("host=db?x#y service='a&b' sslmode='re quire' dbname=d user=u password=pw")
        XCTAssertEqual(named, "postgres://u@db%3Fx%23y/d?service=a%26b&sslmode=re%20quire")
    }
}
