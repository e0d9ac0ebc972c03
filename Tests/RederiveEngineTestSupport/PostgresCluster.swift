import Foundation
import XCTest

/// A throwaway PostgreSQL cluster for the tests: `initdb` in a temporary directory (as the
/// `postgres` user when the tests run as root, since the server refuses to run as root),
/// started with `pg_ctl` on a free loopback port, trust authentication, and stopped when
/// the test process exits. Started once per test process; each test gets its own database.
///
/// A machine without PostgreSQL fails these tests (never skips them): `make test` installs
/// the `postgresql` package first.
final class PostgresCluster: @unchecked Sendable {
    let port: Int
    let directory: String
    let bin: String
    let runAs: [String]

    private static let lock = NSLock()
    nonisolated(unsafe) private static var started: Result<PostgresCluster, Error>?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The shared cluster, started on first use.
    static func shared() throws -> PostgresCluster {
        try lock.withLock {
            if let started { return try started.get() }
            let result = Result { try PostgresCluster() }
            started = result
            if case .success(let cluster) = result {
                atexit { PostgresCluster.started.flatMap { try? $0.get() }?.stop() }
                _ = cluster
            }
            return try result.get()
        }
    }

    private init() throws {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.compactMap(Int.init).max() else {
            throw Failure(description: "no PostgreSQL server under /usr/lib/postgresql (install `postgresql`)")
        }
        bin = "/usr/lib/postgresql/\(version)/bin"
        runAs = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []
        directory = NSTemporaryDirectory() + "rederive-pg-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if getuid() == 0 { _ = try Self.exec(["/bin/chown", "postgres", directory]) }
        port = try Self.freePort()
        try run(["\(bin)/initdb", "-D", "\(directory)/data", "-A", "trust", "-U", "postgres", "--no-sync"])
        try run([
            "\(bin)/pg_ctl", "-D", "\(directory)/data", "-l", "\(directory)/log", "-w", "-t", "30", "-o",
            "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60", "start",
        ])
    }

    /// Stops the server and removes its directory.
    func stop() {
        if let text = try? String(contentsOfFile: "\(directory)/pgbouncer.pid", encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            kill(pid, SIGTERM)
        }
        _ = try? run(["\(bin)/pg_ctl", "-D", "\(directory)/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Stops the server (fast, like a lost network) without removing anything.
    func pause() throws { try run(["\(bin)/pg_ctl", "-D", "\(directory)/data", "-m", "immediate", "-w", "stop"]) }

    /// Starts it again after `pause`.
    func resume() throws {
        try run([
            "\(bin)/pg_ctl", "-D", "\(directory)/data", "-l", "\(directory)/log", "-w", "-t", "30", "-o",
            "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60", "start",
        ])
    }

    /// A new empty database, or a copy of database `template` (which nothing may be connected
    /// to); returns its URL.
    func newDatabase(template: String? = nil) throws -> String {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        _ = try sql("CREATE DATABASE \(name)" + (template.map { " TEMPLATE \($0)" } ?? ""), database: "postgres")
        return "postgres://postgres@127.0.0.1:\(port)/\(name)"
    }

    /// A new empty database owned by a new role that must log in with `password` (SCRAM-SHA-256
    /// over TCP: a `pg_hba.conf` line for that role alone, ahead of the cluster's trust lines,
    /// then a reload). Returns the URL with the password percent-encoded (`encoded`, default), or
    /// spelled as it is when `encoded` is false (a URL parser must then still find the host).
    func newDatabase(password: String, encoded: Bool = true) throws -> String {
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        let (role, name) = ("r_\(suffix)", "t_\(suffix)")
        let quoted = password.replacingOccurrences(of: "'", with: "''")
        try sql("SET password_encryption = 'scram-sha-256'; CREATE ROLE \(role) LOGIN PASSWORD '\(quoted)'")
        try sql("CREATE DATABASE \(name) OWNER \(role)")
        let hba = "\(directory)/data/pg_hba.conf"
        let lines = try String(contentsOfFile: hba, encoding: .utf8)
        try ("host all \(role) 127.0.0.1/32 scram-sha-256\n" + lines).write(
            toFile: hba, atomically: false, encoding: .utf8)
        try sql("SELECT pg_reload_conf()")
        // The server reloads on its own time: wait until the role is refused without its password.
        for _ in 0..<100 {
            let trusted =
                (try? Self.exec([
                    "\(bin)/psql", "-X", "-w", "-q", "-h", "127.0.0.1", "-p", "\(port)", "-U", role, "-d", name, "-c",
                    "SELECT 1",
                ])) != nil
            if !trusted { break }
            usleep(50_000)
        }
        let spelled = encoded ? password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" : password
        return "postgres://\(role):\(spelled)@127.0.0.1:\(port)/\(name)"
    }

    /// A PgBouncer (Debian's `pgbouncer`) in transaction pooling mode in front of the
    /// cluster, started once, with `poolSize` server connections per database (fewer than its
    /// clients: their transactions share them); returns its port, nil when `pgbouncer` is not
    /// installed. Stopped with the cluster.
    func pgBouncer(poolSize: Int = 2) throws -> Int? {
        try Self.lock.withLock {
            if let bouncerPort { return bouncerPort }
            let binary = "/usr/sbin/pgbouncer"
            guard FileManager.default.isExecutableFile(atPath: binary) else { return nil }
            let port = try Self.freePort()
            let users = "\(directory)/pgbouncer-users.txt"
            try "\"postgres\" \"\"\n".write(toFile: users, atomically: true, encoding: .utf8)
            let ini = """
                [databases]
                * = host=127.0.0.1 port=\(self.port)
                [pgbouncer]
                listen_addr = 127.0.0.1
                listen_port = \(port)
                unix_socket_dir =
                auth_type = trust
                auth_file = \(users)
                pool_mode = transaction
                default_pool_size = \(poolSize)
                max_client_conn = 200
                logfile = \(directory)/pgbouncer.log
                pidfile = \(directory)/pgbouncer.pid

                """
            try ini.write(toFile: "\(directory)/pgbouncer.ini", atomically: true, encoding: .utf8)
            if getuid() == 0 { _ = try Self.exec(["/bin/chown", "postgres", users, "\(directory)/pgbouncer.ini"]) }
            try run([binary, "-d", "\(directory)/pgbouncer.ini"])
            for _ in 0..<100 where !FileManager.default.fileExists(atPath: "\(directory)/pgbouncer.pid") {
                usleep(50_000)
            }
            bouncerPort = port
            return port
        }
    }

    private var bouncerPort: Int?
    /// The databases `importedDatabase` copies, by corpus.
    var importedTemplates: [String: String] = [:]

    /// Runs `text` with psql on the database of `url` (or `database`); returns its rows,
    /// one line each, columns separated by `|`.
    @discardableResult
    func sql(_ text: String, url: String? = nil, database: String? = nil) throws -> [String] {
        let db = database ?? url.map { String($0.split(separator: "/").last!) } ?? "postgres"
        let out = try Self.exec([
            "\(bin)/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U",
            "postgres", "-d", db, "-c", text,
        ])
        return out.split(separator: "\n").map(String.init)
    }

    /// Starts psql running `text` on `database` in the background (a session that holds or
    /// waits for a lock), to be ended by `pg_terminate_backend` or by its own statements.
    /// Foundation's `Process`: psql leaves nothing running that would keep it from seeing the end.
    func background(database: String, _ text: String) throws -> Process {
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        psql.arguments = [
            "psql", "-X", "-q", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-c", text,
        ]
        psql.standardOutput = FileHandle.nullDevice
        psql.standardError = FileHandle.nullDevice
        psql.environment = ["PATH": "\(bin):/usr/bin:/bin"]
        try psql.run()
        return psql
    }

    /// Makes each statement that writes summaries take 20 ms more on the server (a trigger), so
    /// that a test of work shared by several worker processes cannot see one worker finish
    /// every range before the others have started (a process start takes ~0.3 s here).
    func slowSummaryWrites(url: String? = nil, database: String? = nil) throws {
        _ = try sql(
            """
            CREATE FUNCTION slow_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.02); \
            RETURN NULL; END $$;
            CREATE TRIGGER slow_write AFTER INSERT OR UPDATE ON summary FOR EACH STATEMENT \
            EXECUTE FUNCTION slow_write();
            """, url: url, database: database)
    }

    func run(_ arguments: [String]) throws {
        _ = try Self.exec(runAs + arguments)
    }

    // posix_spawn and waitpid, not Foundation's Process: the server pg_ctl leaves running
    // inherits what Process watches its child through, and Process then never sees it end.
    @discardableResult
    static func exec(_ arguments: [String]) throws -> String {
        let base = NSTemporaryDirectory() + "rederive-pg-exec-\(UUID().uuidString.prefix(8))"
        defer {
            try? FileManager.default.removeItem(atPath: base + ".out")
            try? FileManager.default.removeItem(atPath: base + ".err")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, base + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, base + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw Failure(description: "cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let data = FileManager.default.contents(atPath: base + ".out") ?? Data()
        let errors = FileManager.default.contents(atPath: base + ".err") ?? Data()
        guard status == 0 else {
            throw Failure(
                description: "\(arguments.joined(separator: " ")) exited with status \(status): "
                    + String(decoding: errors, as: UTF8.self))
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
