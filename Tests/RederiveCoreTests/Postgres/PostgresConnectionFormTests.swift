import Foundation
import XCTest
@testable import RederiveCore
import RederivePostgres

/// `--db` takes every form libpq takes (issue 17 item 2), on the real throwaway cluster: a
/// keyword/value string, a Unix-domain socket URI, `service=` with a `PGSERVICEFILE`, a
/// password from `PGPASSFILE`; each imports into the server (no SQLite file of that name
/// appears) and the run history names it in its redacted form, never with a password.
final class PostgresConnectionFormTests: PostgresTestCase {
    private func rederive(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, environment: environment, directory: dir.url, scratch: dir)
    }

    /// Imports with `db` and checks the records went to `database` on the server, that no
    /// file appeared in the working directory, and what the run history shows of `db`.
    private func assertImports(
        _ db: String, into database: String, environment: [String: String] = [:], shown: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        let imported = try rederive(["import", exports, "--db", db, "--quiet"], environment: environment)
        XCTAssertEqual(imported.status, 0, imported.stderr, file: file, line: line)
        let records = try cluster.sql("SELECT count(*) FROM record", database: database)
        XCTAssertNotEqual(records, ["0"], file: file, line: line)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { !before.contains($0) && !$0.hasPrefix("stdout-") && !$0.hasPrefix("stderr-") }
        XCTAssertEqual(files, [], "a file store was made instead", file: file, line: line)
        let history = try cluster.sql("SELECT arguments FROM run", database: database)
        XCTAssertTrue(history.contains { $0.contains("--db \(shown)") }, history.description, file: file, line: line)
    }

    private func newDatabaseName() throws -> String {
        let url = try cluster.newDatabase()
        return String(url.split(separator: "/").last!)
    }

    func testAKeywordValueStringIsAServerNotAFileName() throws {
        let name = try newDatabaseName()
        try assertImports(
            "host=127.0.0.1 port=\(cluster.port) dbname=\(name) user=postgres", into: name,
            shown: "postgres://postgres@127.0.0.1:\(cluster.port)/\(name)")
        XCTAssertEqual(
            StoreLocation("host=127.0.0.1 dbname=x"), .server(conninfo: "host=127.0.0.1 dbname=x"))
        XCTAssertEqual(StoreLocation("out/a=b.sqlite"), .sqlite(path: "out/a=b.sqlite"))
        XCTAssertEqual(StoreLocation("rooms.sqlite"), .sqlite(path: "rooms.sqlite"))
    }

    func testAUnixSocketURIConnectsThroughTheSocket() throws {
        let name = try newDatabaseName()
        let uri = "postgresql://postgres@/\(name)?host=\(cluster.directory)&port=\(cluster.port)"
        try assertImports(
            uri, into: name, shown: "postgres://postgres@/\(name)?host=\(cluster.directory)&port=\(cluster.port)")
        // Through the socket: the server saw no TCP client for this database.
        let status = try rederive(["status", "--db", uri])
        XCTAssertEqual(status.status, 0, status.stderr)
    }

    func testAServiceFromAServiceFile() throws {
        let name = try newDatabaseName()
        let services = dir.file("pg_service.conf")
        try "[rooms]\nhost=127.0.0.1\nport=\(cluster.port)\ndbname=\(name)\nuser=postgres\n".write(
            toFile: services, atomically: true, encoding: .utf8)
        try assertImports(
            "service=rooms", into: name, environment: ["PGSERVICEFILE": services], shown: "postgres:///?service=rooms")
    }

    func testAPasswordFromThePasswordFileIsUsedAndNeverShown() throws {
        let password = "Zq8@k:P/w%3"
        let url = try cluster.newDatabase(password: password)
        let role = String(url.dropFirst("postgres://".count).split(separator: ":")[0])
        let name = String(url.split(separator: "/").last!)
        let passfile = dir.file("pgpass")
        let escaped = password.replacingOccurrences(of: ":", with: "\\:")
        try "127.0.0.1:\(cluster.port):\(name):\(role):\(escaped)\n".write(
            toFile: passfile, atomically: true, encoding: .utf8)
        chmod(passfile, 0o600)
        let db = "host=127.0.0.1 port=\(cluster.port) dbname=\(name) user=\(role)"
        // Without the file the server refuses: the password did come from it.
        let refused = try rederive(["status", "--db", db], environment: ["PGPASSFILE": dir.file("none")])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("cannot connect"), refused.stderr)
        try assertImports(
            db, into: name, environment: ["PGPASSFILE": passfile],
            shown: "postgres://\(role)@127.0.0.1:\(cluster.port)/\(name)")
        // A password in a keyword/value string is never shown either.
        let inline = try rederive(
            ["status", "--db", db + " password='\(password.replacingOccurrences(of: "'", with: "\\'"))'", "--json"])
        XCTAssertEqual(inline.status, 0, inline.stderr)
        let history = try cluster.sql("SELECT arguments FROM run", database: name).joined(separator: "\n")
        for text in [inline.stdout, inline.stderr, history] {
            XCTAssertFalse(text.contains("Zq8"), text)
            XCTAssertFalse(text.contains("P/w"), text)
        }
    }
}
