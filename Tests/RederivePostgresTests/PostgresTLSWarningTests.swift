import XCTest
@testable import RederiveCore
@testable import RederivePostgres

/// S05: a non-local server reached with an `sslmode` that does not verify it (libpq's default
/// `prefer` falls back to plain text, and a fake server received `PGPASSWORD` in clear) gets
/// one warning saying how to fix or silence it; a verified or local connection gets none. The
/// decision (`PostgresConninfo.unverifiedTLSWarning`) in every spelling: URI, keyword string,
/// environment. The command-line side: `testARemoteServerWithoutVerifiedTLSIsWarnedOfOnce`.
final class PostgresTLSWarningTests: XCTestCase {
    private func warning(_ conninfo: String, _ environment: [String: String] = [:]) throws -> String? {
        try PostgresConninfo.unverifiedTLSWarning(conninfo, environment: environment)
    }

    func testARemoteHostWithoutVerificationIsWarnedOfInEverySpelling() throws {
        let uri = try XCTUnwrap(try warning("postgres://rederive:pw@db.example/rooms"))
        XCTAssertTrue(uri.contains("connects to db.example with sslmode=prefer"), uri)
        XCTAssertTrue(uri.contains("sslmode=verify-full") && uri.contains("REDERIVE_TLS_WARNING=off"), uri)
        XCTAssertFalse(uri.contains("pw"), uri)
        XCTAssertNotNil(try warning("postgres://u@10.0.0.5:5432/rooms?sslmode=require"))
        XCTAssertNotNil(try warning("host=db.example dbname=rooms user=u sslmode=disable"))
        XCTAssertNotNil(try warning("host=localhost hostaddr=192.0.2.7 dbname=rooms"))  // the address is dialled
        XCTAssertNotNil(try warning("postgres://u@127.0.0.1,db.example/rooms"))  // any remote host of a list
        // From the environment: the host, the mode, or both.
        XCTAssertNotNil(try warning("dbname=rooms", ["PGHOST": "db.example"]))
        XCTAssertNotNil(try warning("dbname=rooms", ["PGHOSTADDR": "192.0.2.7"]))
        let environmentMode = try XCTUnwrap(try warning("host=db.example dbname=rooms", ["PGSSLMODE": "allow"]))
        XCTAssertTrue(environmentMode.contains("sslmode=allow"), environmentMode)
    }

    func testAVerifiedOrLocalConnectionOrASilencedOneIsNot() throws {
        XCTAssertNil(try warning("postgres://u@db.example/rooms?sslmode=verify-full&sslrootcert=/etc/ca.pem"))
        XCTAssertNil(try warning("host=db.example dbname=rooms sslmode=verify-ca"))
        XCTAssertNil(try warning("host=db.example dbname=rooms", ["PGSSLMODE": "verify-full"]))
        // The string's mode wins over the environment's, as in libpq.
        XCTAssertNotNil(try warning("host=db.example dbname=rooms sslmode=prefer", ["PGSSLMODE": "verify-full"]))
        for local in [
            "postgres://u@127.0.0.1:5432/rooms", "postgres://u@localhost/rooms", "postgres://u@[::1]/rooms",
            "postgres://u@/rooms?host=/var/run/postgresql", "dbname=rooms", "host=@abstract dbname=rooms",
            "host=db.example hostaddr=127.0.0.1 dbname=rooms",
        ] {
            XCTAssertNil(try warning(local), local)
        }
        XCTAssertNil(try warning("dbname=rooms", ["PGHOST": "/tmp"]))
        XCTAssertNil(try warning("postgres://u@db.example/rooms", ["REDERIVE_TLS_WARNING": "off"]))
        XCTAssertNotNil(try warning("postgres://u@db.example/rooms", ["REDERIVE_TLS_WARNING": "on"]))
        XCTAssertThrowsError(try warning("postgres://u@db.example/rooms", ["REDERIVE_TLS_WARNING": "no"]))
        XCTAssertNil(try warning("not a connection string"))
    }
}
