import CLibpq
import Foundation

/// Where a store is, as `--db` or a pipeline's `store:` names it, parsed once: a PostgreSQL
/// server when libpq reads the text as a connection string (a `postgres://` or
/// `postgresql://` URI, `key=value` pairs such as `host=… dbname=…`, `service=NAME`), else a
/// SQLite file path. libpq itself applies the `PG*` variables, the password file, service
/// files and TLS settings when the engine connects.
package enum StoreLocation: Sendable, Equatable {
    /// A SQLite file.
    case sqlite(path: String)
    /// A PostgreSQL server, by the connection string as given (it may hold a password: show
    /// `redacted`, never this).
    case server(conninfo: String)
    /// A `scheme://` URL of an engine this build does not have.
    case unknownScheme(String)

    /// Parses `text`: a `postgres://`/`postgresql://` URI is a server even when libpq refuses
    /// it (the refusal is reported when it is opened); other text is a server when libpq
    /// parses it as a connection string; a different `scheme://` names no engine here.
    package init(_ text: String) {
        let scheme = RecordStores.scheme(of: text)
        if scheme == "postgres" || scheme == "postgresql" {
            self = .server(conninfo: Self.encodingEarlierAts(text))
        } else if let scheme {
            self = .unknownScheme(scheme)
        } else if Self.libpqOptions(text) != nil {
            self = .server(conninfo: text)
        } else {
            self = .sqlite(path: text)
        }
    }

    /// Whether the store is on a server (shared by processes on any host).
    package var isServer: Bool { if case .server = self { true } else { false } }

    /// Whether commands take a run lock file beside the store (a SQLite file: one writer).
    package var holdsRunLockFile: Bool { if case .sqlite = self { true } else { false } }

    /// Whether derive processes split the work by claiming ranges in the store.
    package var claimsRanges: Bool { isServer }

    /// The SQLite path, nil for a server.
    package var filePath: String? { if case .sqlite(let path) = self { path } else { nil } }

    /// The one form messages, logs, reports, the run history and lock files may show: a path
    /// as it is; a server as `postgres://user@host:port/dbname` rebuilt from libpq's parse of
    /// the connection string, the environment's defaults filling in what it leaves out (as
    /// when connecting), `?service=NAME` when it names one; no password, no other option.
    package var redacted: String {
        switch self {
        case .sqlite(let path): return path
        case .unknownScheme(let scheme): return "\(scheme)://(not shown)"
        case .server(let conninfo): return Self.redact(conninfo)
        }
    }

    /// A URI whose password holds an unencoded `@` (`postgres://u:p@ss@host/db`): libpq takes
    /// the first `@` as the end of the user part (and `ss@host` as the host, showing a piece
    /// of the password in its messages); the last `@` before the path ends it, as URL parsers
    /// read it, so the earlier ones are percent-encoded.
    private static func encodingEarlierAts(_ uri: String) -> String {
        guard let start = uri.range(of: "://")?.upperBound else { return uri }
        let end = uri[start...].firstIndex { $0 == "/" || $0 == "?" } ?? uri.endIndex
        let authority = uri[start..<end]
        guard let last = authority.lastIndex(of: "@"), authority[..<last].contains("@") else { return uri }
        let user = authority[..<last].replacingOccurrences(of: "@", with: "%40")
        return String(uri[..<start]) + user + String(uri[last...])
    }

    /// What a connection string libpq does not parse shows as.
    package static let unparsable = "postgres://(a connection string that does not parse; not shown)"

    /// libpq's options of `conninfo` (keyword: value, only those it sets), nil when libpq
    /// does not parse it.
    package static func libpqOptions(_ conninfo: String) -> [String: String]? {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &error) else {
            if let error { PQfreemem(error) }
            return nil
        }
        defer { PQconninfoFree(options) }
        return Self.values(options)
    }

    /// libpq's defaults now (the `PG*` variables, the OS user name).
    private static func defaults() -> [String: String] {
        guard let options = PQconndefaults() else { return [:] }
        defer { PQconninfoFree(options) }
        return values(options)
    }

    private static func values(_ options: UnsafeMutablePointer<PQconninfoOption>) -> [String: String] {
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return values
    }

    private static func redact(_ conninfo: String) -> String {
        guard let given = libpqOptions(conninfo) else { return unparsable }
        // A service file may set what the text leaves out: only what is given is shown then.
        let service =
            given["service"] ?? (given["host"] == nil ? ProcessInfo.processInfo.environment["PGSERVICE"] : nil)
        let options = service == nil ? given.merging(defaults()) { given, _ in given } : given
        let hosts = (options["host"] ?? options["hostaddr"] ?? "").split(
            separator: ",", omittingEmptySubsequences: false
        )
        .map(String.init)
        let ports = (options["port"] ?? (service == nil ? "5432" : "")).split(separator: ",").map(String.init)
        guard ports.allSatisfy({ Int($0).map { (1...65535).contains($0) } ?? false }),
            !hosts.contains(where: { $0.contains("@") })
        else { return unparsable }
        let user = (options["user"] ?? "").addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? ""
        let database =
            (options["dbname"] ?? options["user"] ?? "")
            .addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
        var query: [String] = []
        var shown: [String] = []
        for (index, host) in hosts.enumerated() {
            let port = ports.isEmpty ? "" : ports[min(index, ports.count - 1)]
            if host.hasPrefix("/") || host.hasPrefix("@") || host.isEmpty {
                // A Unix-domain socket folder (empty: libpq's default one).
                if !host.isEmpty { query.append("host=\(host)") }
                if !port.isEmpty { query.append("port=\(port)") }
                continue
            }
            let name = host.contains(":") ? "[\(host)]" : host
            shown.append(port.isEmpty ? name : "\(name):\(port)")
        }
        if let service { query.append("service=\(service)") }
        let user_ = user.isEmpty ? "" : user + "@"
        return "postgres://\(user_)\(shown.joined(separator: ","))/\(database)"
            + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }
}
