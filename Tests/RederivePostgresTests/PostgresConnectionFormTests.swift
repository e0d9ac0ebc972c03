import Foundation
import XCTest
@testable import RederiveCore
import RederivePostgres
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `--db` takes every form libpq takes (issue 17 item 2), on the real throwaway cluster: a
/// keyword/value string, a Unix-domain socket URI, `service=` with a `PGSERVICEFILE`, a
/// password from `PGPASSFILE`, several hosts (a URI's and a keyword string's, the first
/// refusing connections); each imports into the server (no SQLite file of that name
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
        XCTAssertEqual(StoreLocation("host=127.0.0.1 dbname=x").engine?.name, "PostgreSQL")
        XCTAssertEqual(StoreLocation("out/a=b.sqlite").filePath, "out/a=b.sqlite")
        XCTAssertEqual(StoreLocation("rooms.sqlite").filePath, "rooms.sqlite")
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

    /// A loopback port nothing listens on (bound once to find it, then closed): a connection
    /// to it is refused at once.
    private func refusingPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let found = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        XCTAssertTrue(found)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Derives every record and exports them (through the COPY read) with `db`.
    private func assertDerivesAndExports(_ db: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let derived = try rederive(["derive", "--db", db, "--all", "--quiet"])
        XCTAssertEqual(derived.status, 0, derived.stderr, file: file, line: line)
        let out = dir.file("export-\(UUID().uuidString.prefix(6)).jsonl")
        let exported = try rederive(["export", "--db", db, "--out", out, "--quiet"])
        XCTAssertEqual(exported.status, 0, exported.stderr, file: file, line: line)
        XCTAssertFalse(try String(contentsOfFile: out, encoding: .utf8).isEmpty, file: file, line: line)
    }

    func testAMultiHostURIWhoseFirstHostRefusesImportsDerivesAndExports() throws {
        let (name, dead, live) = (try newDatabaseName(), try refusingPort(), cluster.port)
        let uri =
            "postgresql://postgres@127.0.0.1:\(dead),127.0.0.1:\(live)/\(name)"
            + "?target_session_attrs=read-write&connect_timeout=2"
        // Every host is shown, as given: the run history says which servers the store may be on.
        try assertImports(
            uri, into: name,
            shown: "postgres://postgres@127.0.0.1:\(dead),127.0.0.1:\(live)/\(name)?target_session_attrs=read-write")
        try assertDerivesAndExports(uri)
        XCTAssertEqual(
            try cluster.sql("SELECT command, status FROM run ORDER BY id", database: name),
            ["import|completed", "derive|completed", "export|completed"])
    }

    func testAKeywordStringWithTwoHostsWhoseFirstRefusesImportsDerivesAndExports() throws {
        let (name, dead, live) = (try newDatabaseName(), try refusingPort(), cluster.port)
        let db =
            "host=127.0.0.1,127.0.0.1 port=\(dead),\(live) dbname=\(name) user=postgres "
            + "target_session_attrs=read-write connect_timeout=2"
        try assertImports(
            db, into: name,
            shown: "postgres://postgres@127.0.0.1:\(dead),127.0.0.1:\(live)/\(name)?target_session_attrs=read-write")
        try assertDerivesAndExports(db)
        // No host answering: one line that says so, exit 2.
        let down = try rederive([
            "status", "--db", "host=127.0.0.1,127.0.0.1 port=\(dead),\(try refusingPort()) dbname=x",
        ])
        XCTAssertEqual(down.status, 2, down.stderr)
        XCTAssertEqual(down.stderr.split(separator: "\n").count, 1, down.stderr)
        XCTAssertTrue(down.stderr.contains("cannot connect"), down.stderr)
    }

    /// A password in a multi-host URI is in no output, log, file or run history (the server's,
    /// and a SQLite copy's that names the server), whatever the command.
    func testAPasswordInAMultiHostURIIsNeverShown() throws {
        let password = "secretPw7"
        let url = try cluster.newDatabase(password: password)
        let role = String(url.dropFirst("postgres://".count).split(separator: ":")[0])
        let name = String(url.split(separator: "/").last!)
        let dead = try refusingPort()
        let uri = "postgresql://\(role):\(password)@127.0.0.1:\(dead),127.0.0.1:\(cluster.port)/\(name)"
        let shown = "postgres://\(role)@127.0.0.1:\(dead),127.0.0.1:\(cluster.port)/\(name)"
        let copy = dir.file("copy.sqlite")
        var outputs: [String] = []
        for arguments in [
            ["import", exports, "--db", uri, "--log-format", "json"], ["derive", "--db", uri, "--all", "--json"],
            ["export", "--db", uri, "--out", dir.file("out.jsonl"), "--metrics-file", dir.file("m.prom")],
            ["status", "--db", uri, "--json", "--runs", "5"], ["failures", "--db", uri, "--json"],
            ["copy-store", "--from", uri, "--to", copy, "--log-format", "json"],
        ] {
            let result = try rederive(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments[0]): \(result.stderr)")
            outputs += [result.stdout, result.stderr]
        }
        let serverRuns = try cluster.sql("SELECT command || ' ' || arguments FROM run ORDER BY id", url: url)
        XCTAssertEqual(serverRuns.count, 3)
        XCTAssertTrue(serverRuns.allSatisfy { $0.contains(shown) }, serverRuns.description)
        let copyRuns = try StoreInspection.rows(copy, "SELECT command || ' ' || arguments AS x FROM run ORDER BY id")
            .map { $0["x"] as String }
        XCTAssertTrue(try XCTUnwrap(copyRuns.last).contains("copy-store --from \(shown)"), copyRuns.description)
        var files: [String] = []
        let walker = FileManager.default.enumerator(atPath: dir.path)
        while let relative = walker?.nextObject() as? String {
            files.append(
                relative + " "
                    + String(
                        decoding: FileManager.default.contents(atPath: dir.file(relative)) ?? Data(), as: UTF8.self))
        }
        for text in outputs + serverRuns + copyRuns + files {
            XCTAssertFalse(text.contains("secret"), String(text.prefix(2000)))
        }
    }

    /// The command between the backquotes after `lead` in `log` (a suggested command), as arguments.
    private func suggested(after lead: String, in log: String) throws -> [String] {
        let start = try XCTUnwrap(log.range(of: lead + " `rederive "), log).upperBound
        let end = try XCTUnwrap(log[start...].firstIndex(of: "`"), log)
        return log[start..<end].split(separator: " ").map(String.init)
    }

    /// S12: the commands a plan and an apply suggest keep the connection's non-secret options
    /// (they dropped `sslmode`, so pasting them downgraded `verify-full` to `prefer`), and,
    /// pasted as they are, they apply the plan and undo it on the same database.
    func testTheSuggestedApplyAndUndoCommandsKeepTheConnectionOptions() throws {
        let name = try newDatabaseName()
        let base = "postgres://postgres@127.0.0.1:\(cluster.port)/\(name)"
        let db = base + "?sslmode=disable&target_session_attrs=read-write&connect_timeout=5&application_name=t"
        let shown = base + "?sslmode=disable&target_session_attrs=read-write"
        XCTAssertEqual(try rederive(["import", exports, "--db", db, "--quiet"]).status, 0)
        try cluster.sql("UPDATE summary SET summary_version = 0, fingerprint = 'v0-old'", database: name)
        let plan = dir.file("plan.json")
        let dry = try rederive([
            "derive", "--db", db, "--all", "--dry-run", "--plan", plan, "--preview-out", dir.file("p"),
        ])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        let apply = try suggested(after: "apply it with", in: dry.stderr)
        XCTAssertEqual(apply, ["derive", "--db", shown, "--apply-plan", plan])
        let applied = try rederive(apply)
        XCTAssertEqual(applied.status, 0, applied.stderr)
        let undo = try suggested(after: "undo this backfill with", in: applied.stderr)
        XCTAssertEqual(Array(undo.prefix(3)), ["revert", "--db", shown])
        let undone = try rederive(undo)
        XCTAssertEqual(undone.status, 0, undone.stderr)
        XCTAssertEqual(
            try cluster.sql("SELECT command, status FROM run ORDER BY id", database: name),
            ["import|completed", "derive|completed", "revert|completed"])
    }
}
