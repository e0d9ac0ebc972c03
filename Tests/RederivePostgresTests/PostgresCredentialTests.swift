import Foundation
import GRDB
import XCTest
@testable import RederiveCore
import RederivePostgres
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// A password in a `postgres://` URL is never shown (README "Security model"): on a real
/// server (`PostgresCluster`) whose role logs in with SCRAM and a password holding `@`, `:`,
/// `/` and `%`, every command that names the store is run through the built binary, and its
/// stdout, stderr, every file it wrote, the server's run history and a SQLite store's are
/// searched for the password and for each piece of it.
final class PostgresCredentialTests: XCTestCase {
    private var cluster: PostgresCluster!
    private var dir: TemporaryDirectory!
    /// What every command saw and wrote, for the final search.
    private var seen: [(what: String, text: String)] = []

    /// The password; its pieces between the separators are searched for too (a redaction
    /// that stops at the first `@` leaves the rest).
    private static let password = "Kq7vB@Zt3wQ:Mx9rL/Jp2sN%Hy4nR"
    private static let pieces = ["Kq7vB", "Zt3wQ", "Mx9rL", "Jp2sN", "Hy4nR"]

    override func setUpWithError() throws {
        cluster = try PostgresCluster.shared()
        dir = try TemporaryDirectory()
        seen = []
    }

    override func tearDown() { dir = nil }

    private var exports: String { RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports").path }

    /// Runs rederive in the scratch directory (so default paths land there) and keeps what it printed.
    @discardableResult
    private func rederive(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandLineResult {
        let result = try CommandLineTool.invoke(arguments, environment: environment, directory: dir.url, scratch: dir)
        let name = arguments.prefix(2).joined(separator: " ")
        seen.append(("stdout of \(name)", result.stdout))
        seen.append(("stderr of \(name)", result.stderr))
        return result
    }

    /// Every file under the scratch directory (its names too), as text.
    private func filesWritten() -> [(what: String, text: String)] {
        let walker = FileManager.default.enumerator(atPath: dir.path)
        var files: [(String, String)] = []
        while let relative = walker?.nextObject() as? String {
            files.append(("the name \(relative)", relative))
            let data = FileManager.default.contents(atPath: dir.file(relative)) ?? Data()
            files.append(("the file \(relative)", String(decoding: data, as: UTF8.self)))
        }
        return files
    }

    private func assertNoSecret(
        in texts: [(what: String, text: String)], secrets: [String], file: StaticString = #filePath, line: UInt = #line
    ) {
        for (what, text) in texts {
            for secret in secrets where text.contains(secret) {
                XCTFail("\(what) holds \(secret): \(text.prefix(2000))", file: file, line: line)
            }
        }
    }

    func testNoCommandShowsOrKeepsAPasswordHoldingAtColonSlashAndPercent() throws {
        let url = try cluster.newDatabase(password: Self.password)
        let encoded = try XCTUnwrap(url.split(separator: ":")[2].split(separator: "@").first).description
        let secrets = [Self.password, encoded] + Self.pieces
        // The server asks for the password: a store reopened from a URL without it cannot connect.
        let refused = try rederive(["status", "--db", url.replacingOccurrences(of: ":" + encoded + "@", with: "@")])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        try "{\"not\": a record\n".write(toFile: dir.file("bad.jsonl"), atomically: true, encoding: .utf8)

        // The store gauges come from the open store (F10), not a reconnect without the password.
        let imported = try rederive([
            "import", exports, dir.file("bad.jsonl"), "--db", url, "--json", "--metrics-file", dir.file("i.prom"),
            "--report", dir.file("i-report.jsonl"),
        ])
        XCTAssertEqual(imported.status, 3, imported.stderr)
        let metrics = try String(contentsOfFile: dir.file("i.prom"), encoding: .utf8)
        for gauge in ["rederive_store_stale_records", "rederive_store_open_failures", "rederive_store_newer_summaries"]
        {
            XCTAssertTrue(metrics.contains(gauge + "{"), "\(gauge) missing:\n\(metrics)")
        }

        // A server store's default preview goes to the user's state directory, named after the
        // database (review #22: no `rederive-preview/` in the working directory).
        let state = ["XDG_STATE_HOME": dir.file("state")]
        let dry = try rederive(
            ["derive", "--db", url, "--all", "--dry-run", "--plan", dir.file("plan.json")], environment: state)
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stderr.contains("apply it with `rederive derive --db postgres://"), dry.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("rederive-preview")))
        let previews = try FileManager.default.contentsOfDirectory(atPath: dir.file("state/rederive/previews"))
        XCTAssertEqual(previews.count, 1, "\(previews)")
        let preview = dir.file("state/rederive/previews") + "/" + (previews.first ?? "")
        XCTAssertTrue(FileManager.default.fileExists(atPath: preview + "/preview.json"))
        XCTAssertFalse(preview.contains(Self.password) || preview.contains(encoded), preview)

        let failures = try rederive(["failures", "--db", url, "--json"])
        XCTAssertEqual(failures.status, 0, failures.stderr)
        let listed = try XCTUnwrap(JSONSerialization.jsonObject(with: failures.stdoutData) as? [String: Any])
        XCTAssertGreaterThanOrEqual(listed["count"] as? Int ?? 0, 1)
        XCTAssertEqual(try XCTUnwrap(listed["store"] as? String).hasPrefix("postgres://r_"), true)

        XCTAssertEqual(try rederive(["show", "nope", "--db", url]).status, 1)
        XCTAssertEqual(try rederive(["history", "--db", url, "--id", "nope"]).status, 1)
        XCTAssertEqual(try rederive(["status", "--db", url, "--runs", "5"]).status, 0)
        XCTAssertEqual(try rederive(["status", "--db", url, "--json"]).status, 0)
        let sslmode = try rederive(["status", "--db", url + "?sslmode=bogus"])
        XCTAssertEqual(sslmode.status, 1)
        XCTAssertTrue(sslmode.stderr.contains("invalid sslmode value: \"bogus\""), sslmode.stderr)
        // Spelled without percent-encoding, the URL does not parse: nothing of it is shown.
        let raw = try rederive(["status", "--db", url.replacingOccurrences(of: encoded, with: Self.password)])
        XCTAssertEqual(raw.status, 1)

        try "version: 1\nname: credp\nstages:\n  - import: {}\n  - derive: {}\n".write(
            toFile: dir.file("p.yml"), atomically: true, encoding: .utf8)
        let run = try rederive([
            "run", dir.file("p.yml"), "--db", url, "--input", exports, "--json", "--results-file", dir.file("r.json"),
            "--metrics-file", dir.file("run.prom"), "--report", dir.file("reports") + "/", "--log-format", "json",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(
            try String(contentsOfFile: dir.file("run.prom"), encoding: .utf8).contains("rederive_store_stale_records{"))
        XCTAssertEqual(try rederive(["run", dir.file("p.yml"), "--db", url, "--input", exports]).status, 0)

        // A dry run of a pipeline previews where `derive --dry-run` does (F08), nothing in the cwd.
        try FileManager.default.removeItem(atPath: preview)
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path))
        let pipelineDry = try rederive(
            ["run", dir.file("p.yml"), "--db", url, "--dry-run", "--json"], environment: state)
        XCTAssertEqual(pipelineDry.status, 0, pipelineDry.stderr)
        let created = Set(try FileManager.default.contentsOfDirectory(atPath: dir.path)).subtracting(before)
        XCTAssertEqual(created.filter { !$0.hasPrefix("stdout-") && !$0.hasPrefix("stderr-") }, [])
        XCTAssertTrue(FileManager.default.fileExists(atPath: preview + "/preview.json"))

        // The other store: a SQLite copy, whose run history and lock name the server.
        let sqlite = dir.file("copy.sqlite")
        XCTAssertEqual(try rederive(["copy-store", "--from", url, "--to", sqlite]).status, 0)
        XCTAssertEqual(try rederive(["status", "--db", sqlite, "--runs", "5"]).status, 0)

        let serverRuns = try cluster.sql(
            "SELECT command || ' ' || arguments || ' ' || COALESCE(resume_key, '') FROM run", url: url)
        XCTAssertGreaterThanOrEqual(serverRuns.count, 4)
        // The copy brings the server's run history along: every row is searched below.
        let sqliteRuns = try StoreInspection.rows(
            sqlite, "SELECT command || ' ' || arguments AS x FROM run ORDER BY id"
        )
        .map { $0["x"] as String }
        XCTAssertEqual(sqliteRuns.count, serverRuns.count + 1)
        XCTAssertTrue(
            try XCTUnwrap(sqliteRuns.last).contains("copy-store --from postgres://r_"), sqliteRuns.description)
        assertNoSecret(
            in: seen + filesWritten() + [
                ("the server's run history", serverRuns.joined(separator: "\n")),
                ("the SQLite store's run history", sqliteRuns.joined(separator: "\n")),
            ],
            secrets: secrets)
    }

    /// The lock file of a SQLite store a copy from the server writes into names the command
    /// without the password, and only its owner may read it (S04: it was 0644 and kept a
    /// `--from=host=… password=…`). Read while the copy waits on a table the test holds locked.
    func testTheRunLockOfACopyFromTheServerHoldsNoPassword() throws {
        let url = try cluster.newDatabase(password: "Wd4xP@Lm8qT", encoded: false)
        XCTAssertEqual(try rederive(["import", exports, "--db", url, "--quiet"]).status, 0)
        let (lockText, mode) = try lockWhileCopying(url, ["--from", url])
        XCTAssertTrue(lockText.contains("copy-store --from postgres://r_"), lockText)
        XCTAssertEqual(mode, 0o600)
        assertNoSecret(in: seen + [("the lock file", lockText)], secrets: ["Wd4xP", "Lm8qT"])
    }

    /// S04: a keyword string after `--db=` or `--from=` (the review's spelling) leaves its
    /// password in no run history, lock file or output: the server's, the copy's, or a
    /// pipeline's whose `store:` is such a string.
    func testAKeywordStringAfterAnEqualsSignKeepsNoPassword() throws {
        let password = "PlainSecret99x"
        let url = try cluster.newDatabase(password: password)
        let role = String(url.dropFirst("postgres://".count).prefix { $0 != ":" })
        let database = String(url.split(separator: "/").last!)
        let keywords = "host=127.0.0.1 port=\(cluster.port) user=\(role) password=\(password) dbname=\(database)"
        let imported = try rederive(["import", exports, "--db=" + keywords, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let (lockText, mode) = try lockWhileCopying(url, ["--from=" + keywords])
        XCTAssertEqual(mode, 0o600)
        let pipelines = try TemporaryDirectory()  // apart: the file itself holds the password
        try "version: 1\nname: kv\nstore: \"\(keywords)\"\nstages:\n  - derive: {}\n".write(
            toFile: pipelines.file("kv.yml"), atomically: true, encoding: .utf8)
        let run = try rederive(["run", pipelines.file("kv.yml"), "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let serverRuns = try cluster.sql("SELECT command || ' ' || arguments FROM run ORDER BY id", url: url)
        XCTAssertEqual(serverRuns.count, 2, serverRuns.description)
        XCTAssertTrue(serverRuns[0].contains("--db=postgres://\(role)@127.0.0.1:"), serverRuns[0])
        let copied = try StoreInspection.rows(dir.file("copy.sqlite"), "SELECT arguments AS x FROM run ORDER BY id")
            .map { $0["x"] as String }
        XCTAssertTrue(copied.last?.contains("--from=postgres://\(role)@127.0.0.1:") ?? false, copied.description)
        assertNoSecret(
            in: seen + filesWritten() + [
                ("the lock file", lockText), ("the server's run history", serverRuns.joined(separator: "\n")),
                ("the copy's run history", copied.joined(separator: "\n")),
            ],
            secrets: [password])
    }

    /// Copies the server store `url` into `copy.sqlite` with `from` (the `--from` spelling)
    /// while a table is held locked, and returns the copy's run lock text and permissions as
    /// read while it waits.
    private func lockWhileCopying(_ url: String, _ from: [String]) throws -> (text: String, mode: mode_t) {
        let database = String(url.split(separator: "/").last!)
        let holder = try cluster.background(
            database: database, "BEGIN; LOCK TABLE record IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(120); COMMIT;")
        defer {
            _ = try? cluster.sql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(120)%' "
                    + "AND pid <> pg_backend_pid()", database: database)
            holder.waitUntilExit()
        }
        let held = """
            SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' AND relation = 'record'::regclass
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """
        while try cluster.sql(held, url: url) == ["0"] {
            usleep(20_000)
        }
        let sqlite = dir.file("copy.sqlite")
        let copy = try CommandLineTool.Child(
            ["copy-store"] + from + ["--to", sqlite, "--quiet"], stderrPath: dir.file("copy.err"))
        var lockText = ""
        var mode: mode_t = 0
        while copy.isRunning {
            // The file as it is (an older holder's text would be scrubbed by `RunLock.holder`).
            if RunLock.holder(ofStore: sqlite) != nil, let data = FileManager.default.contents(atPath: sqlite + ".lock")
            {
                lockText = String(decoding: data, as: UTF8.self)
                var info = stat()
                if stat(sqlite + ".lock", &info) == 0 { mode = info.st_mode & 0o777 }
                break
            }
            usleep(10_000)
        }
        _ = try cluster.sql(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(120)%' "
                + "AND pid <> pg_backend_pid()", database: database)
        XCTAssertEqual(copy.wait().status, 0, copy.stderr)
        seen.append(("stderr of the copy", copy.stderr))
        return (lockText, mode)
    }

    /// F09: a password with an `@` spelled as it is (the URL parser takes the last `@` before
    /// the host) connects, and neither the run history nor `status --runs` keeps any of it.
    func testAPasswordWithAnUnencodedAtLeavesNothingInTheRunHistory() throws {
        let url = try cluster.newDatabase(password: "Wd4xP@Lm8qT", encoded: false)
        let imported = try rederive(["import", exports, "--db", url, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(try rederive(["status", "--db", url, "--runs", "3"]).status, 0)
        let runs = try cluster.sql("SELECT arguments FROM run", url: url)
        XCTAssertEqual(runs.count, 1)
        XCTAssertTrue(runs[0].contains("--db postgres://r_"), runs[0])
        assertNoSecret(
            in: seen + [("the run history", runs.joined(separator: "\n"))], secrets: ["Wd4xP", "Lm8qT"])
    }
}
