import Foundation
import NIOSSL
import PostgresNIO
import RederiveCore

/// Where a PostgreSQL store is: `postgres://user[:password]@host[:port]/dbname[?sslmode=…]`,
/// with the password (when the URL has none) from `PGPASSWORD` or the password file
/// (`PGPASSFILE`, default `~/.pgpass`), and the TLS mode from `sslmode` or `PGSSLMODE`
/// (libpq's names; default `prefer`).
struct PostgresLocation: Sendable, Equatable {
    var host: String
    var port: Int
    var user: String
    var password: String?
    var database: String
    var sslMode: String

    /// The location's one redacted form (`redacted(_:)`): the URL without its password.
    var display: String { Self.display(user: user, host: host, port: port, database: database) }

    /// Parses `text`, reading the environment for what it leaves out (the password too: from
    /// `PGPASSWORD` or the password file).
    init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(RederiveError) {
        guard var location = Self(parsing: text, environment: environment) else {
            throw .usage("\(Self.unparsable): not a PostgreSQL URL (postgres://user@host:port/dbname)")
        }
        let modes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]
        guard modes.contains(location.sslMode) else {
            throw .usage(
                "\(location.display): sslmode \(location.sslMode) is not one of \(modes.joined(separator: ", "))")
        }
        if location.password == nil {
            location.password =
                environment["PGPASSWORD"]
                ?? Self.passwordFile(environment: environment).flatMap {
                    Self.password(
                        inPassFile: $0, host: location.host, port: location.port, database: location.database,
                        user: location.user)
                }
        }
        self = location
    }

    /// The one redacted form of a PostgreSQL location, used by every message, log line, report,
    /// results file, run history row, lock file, metrics label and default path that names the
    /// store: `postgres://user@host:port/dbname`, built from the parsed connection options (the
    /// environment filling in what the URL leaves out, as when connecting), so nothing else of
    /// the text (the password, whatever characters it holds, or any parameter) is ever shown.
    /// Text that does not parse as a PostgreSQL URL shows none of itself. The parse is
    /// `init(parsing:environment:)`: a port to libpq swaps that, not this.
    static func redacted(
        _ text: String, environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> String
    {
        Self(parsing: text, environment: environment)?.display ?? unparsable
    }

    /// What a location that does not parse shows as.
    static let unparsable = "postgres://(a URL that does not parse; not shown)"

    /// `postgres://user@host:port/dbname`, the user name and database percent-encoded as in a
    /// URL (an `@` or `/` in them cannot be taken for a separator), an IPv6 host in brackets.
    private static func display(user: String, host: String, port: Int, database: String) -> String {
        let user = user.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? user
        let database = database.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? database
        let host = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "postgres://\(user)@\(host):\(port)/\(database)"
    }

    /// The connection options `text` names, the environment filling in what it leaves out;
    /// the password only from the URL, the TLS mode not yet checked. Nil when `text` is not a
    /// PostgreSQL URL.
    private init?(parsing text: String, environment: [String: String]) {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            return nil
        }
        host = url.host.flatMap { $0.isEmpty ? nil : $0 } ?? environment["PGHOST"] ?? "localhost"
        port = url.port ?? environment["PGPORT"].flatMap(Int.init) ?? 5432
        user = url.user.flatMap { $0.isEmpty ? nil : $0 } ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        database = path.isEmpty ? (environment["PGDATABASE"] ?? user) : path
        let query = Dictionary(
            (url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        sslMode = query["sslmode"] ?? environment["PGSSLMODE"] ?? "prefer"
        password = url.password
    }

    private static func passwordFile(environment: [String: String]) -> String? {
        if let file = environment["PGPASSFILE"] { return file }
        guard let home = environment["HOME"] else { return nil }
        return home + "/.pgpass"
    }

    /// The password a `.pgpass` file gives (`host:port:database:user:password`, `*` for any,
    /// `\:` and `\\` escaped), first matching line wins; nil when none matches or no file.
    static func password(inPassFile path: String, host: String, port: Int, database: String, user: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            var fields: [String] = [""]
            var escaped = false
            for char in line {
                if escaped {
                    fields[fields.count - 1].append(char)
                    escaped = false
                } else if char == "\\" {
                    escaped = true
                } else if char == ":" && fields.count < 5 {
                    fields.append("")
                } else {
                    fields[fields.count - 1].append(char)
                }
            }
            guard fields.count == 5 else { continue }
            let wanted = [host, "\(port)", database, user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// The connection settings for postgres-nio.
    func configuration() throws(RederiveError) -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        do {
            switch sslMode {
            case "disable":
                tls = .disable
            case "allow", "prefer":
                var config = TLSConfiguration.makeClientConfiguration()
                config.certificateVerification = .none
                tls = .prefer(try NIOSSLContext(configuration: config))
            case "require":
                var config = TLSConfiguration.makeClientConfiguration()
                config.certificateVerification = .none
                tls = .require(try NIOSSLContext(configuration: config))
            default:
                var config = TLSConfiguration.makeClientConfiguration()
                config.certificateVerification = sslMode == "verify-full" ? .fullVerification : .noHostnameVerification
                tls = .require(try NIOSSLContext(configuration: config))
            }
        } catch {
            throw .io("\(display): cannot set up TLS (sslmode \(sslMode)): \(error)")
        }
        return PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
    }
}
