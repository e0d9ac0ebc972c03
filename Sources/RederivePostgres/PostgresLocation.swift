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

    /// The URL without its password, for messages and reports.
    var display: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    /// Parses `text`, reading the environment for what it leaves out.
    init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(RederiveError) {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw .usage("\(text): not a PostgreSQL URL (postgres://user@host:port/dbname)")
        }
        host = url.host.flatMap { $0.isEmpty ? nil : $0 } ?? environment["PGHOST"] ?? "localhost"
        port = url.port ?? environment["PGPORT"].flatMap(Int.init) ?? 5432
        user = url.user.flatMap { $0.isEmpty ? nil : $0 } ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        database = path.isEmpty ? (environment["PGDATABASE"] ?? user) : path
        let query = Dictionary(
            (url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        sslMode = query["sslmode"] ?? environment["PGSSLMODE"] ?? "prefer"
        let modes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]
        guard modes.contains(sslMode) else {
            throw .usage("\(text): sslmode \(sslMode) is not one of \(modes.joined(separator: ", "))")
        }
        password =
            url.password ?? environment["PGPASSWORD"]
            ?? Self.passwordFile(environment: environment).flatMap {
                Self.password(inPassFile: $0, host: host, port: port, database: database, user: user)
            }
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
