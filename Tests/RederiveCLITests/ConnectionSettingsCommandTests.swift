import Foundation
import XCTest
@testable import RederiveTestSupport

/// What the built binary does with the environment around a connection: a bad `REDERIVE_*`
/// variable is a usage error (S10: `REDERIVE_LEASE_SECONDS=nan` crashed with SIGILL), and a
/// remote server reached without verified TLS is warned of once (S05).
final class ConnectionSettingsCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String], _ environment: [String: String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, environment: environment, directory: dir.url, scratch: dir)
    }

    func testABadRederiveVariableIsAUsageErrorNamingItNeverACrash() throws {
        let server = ["status", "--db", "postgres://u:pw@127.0.0.1:1/rooms"]
        for value in ["nan", "1e300", "-1", ""] {
            let result = try rederive(server, ["REDERIVE_LEASE_SECONDS": value])
            XCTAssertEqual(result.status, 1, "\(value): \(result.stderr)")
            let expected = "REDERIVE_LEASE_SECONDS=\(value): must be a number of seconds from 0.1 to 86400"
            XCTAssertTrue(result.stderr.contains(expected), result.stderr)
        }
        let attempts = try rederive(server, ["REDERIVE_MAX_ATTEMPTS": "0"])
        XCTAssertEqual(attempts.status, 1, attempts.stderr)
        XCTAssertTrue(attempts.stderr.contains("REDERIVE_MAX_ATTEMPTS=0: must be a whole number from 1 to 1000"))
        // Whatever the store: the operator learns of the mistake at once.
        let sqlite = try rederive(["import", "-", "--db", dir.file("s.sqlite")], ["REDERIVE_LEASE_SECONDS": "nan"])
        XCTAssertEqual(sqlite.status, 1, sqlite.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("s.sqlite")), "nothing was done")
    }

    func testARemoteServerWithoutVerifiedTLSIsWarnedOfOnce() throws {
        // `.invalid` never resolves: the command fails to connect (exit 2) after its warning.
        let remote = "postgres://u@db.invalid:5432/rooms?connect_timeout=2"
        let warned = try rederive(["status", "--db", remote], [:])
        XCTAssertEqual(warned.status, 2, warned.stderr)
        let lines = warned.stderr.split(separator: "\n").filter { $0.contains("does not verify the server") }
        XCTAssertEqual(lines.count, 1, warned.stderr)
        XCTAssertTrue(lines.first?.contains("connects to db.invalid with sslmode=prefer") ?? false, warned.stderr)
        XCTAssertTrue(lines.first?.contains("REDERIVE_TLS_WARNING=off") ?? false, warned.stderr)
        let fromEnvironment = try rederive(["status", "--db", remote], ["PGSSLMODE": "require"])
        XCTAssertTrue(fromEnvironment.stderr.contains("with sslmode=require"), fromEnvironment.stderr)
        for (db, environment) in [
            (remote, ["REDERIVE_TLS_WARNING": "off"]), (remote, ["PGSSLMODE": "verify-full"]),
            (remote + "&sslmode=verify-ca", [:]), ("postgres://u@127.0.0.1:1/rooms", [:]),
        ] {
            let quiet = try rederive(["status", "--db", db], environment)
            XCTAssertFalse(quiet.stderr.contains("does not verify"), "\(db) \(environment): \(quiet.stderr)")
        }
    }
}
