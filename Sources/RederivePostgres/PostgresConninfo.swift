import CLibpq
import Foundation
import RederiveCore

/// libpq's reading of a connection string: whether text is one (`StoreLocation` asks through
/// `RecordStores`), and its redacted form, rebuilt from libpq's parse, the environment's
/// defaults filling in what it leaves out (as when connecting), `?service=NAME` when it names
/// one, and the non-secret options it gives of how the server is reached and checked
/// (`shownOptions`: `sslmode`, `sslrootcert`, `hostaddr`, `target_session_attrs`, …), every
/// value percent-encoded; no password, no other option. In the engine, so the core links no
/// database client.
enum PostgresConninfo {
    /// libpq's options of `conninfo` (keyword: value, only those it sets), nil when libpq
    /// does not parse it.
    static func libpqOptions(_ conninfo: String) -> [String: String]? {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &error) else {
            if let error { PQfreemem(error) }
            return nil
        }
        defer { PQconninfoFree(options) }
        return Self.values(options)
    }

    /// Whether libpq reads `text` as a connection string that holds a password (even an empty
    /// one), or a client key's (`sslpassword`).
    static func holdsPassword(_ text: String) -> Bool {
        guard let options = libpqOptions(text) else { return false }
        return options["password"] != nil || options["sslpassword"] != nil
    }

    /// The options the redacted form keeps, in this order, when the connection string gives
    /// them: how the server is reached and checked, none of them secret, so that a command
    /// rederive suggests (`--apply-plan`, `revert`) connects as the one that ran.
    static let shownOptions = [
        "hostaddr", "sslmode", "sslrootcert", "sslcert", "sslkey", "sslcrl", "sslcrldir", "sslsni",
        "ssl_min_protocol_version", "ssl_max_protocol_version", "requirepeer", "require_auth", "channel_binding",
        "gssencmode", "krbsrvname", "target_session_attrs", "load_balance_hosts",
    ]

    /// What a query value or a host name keeps unencoded: nothing that could end it or start
    /// another option (`&`, `=`, `#`, `?`, `@`, `%`, spaces), so libpq decodes back exactly
    /// what was given.
    private static let plainInQuery = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/:,")
    private static let plainInHost = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func encoded(_ text: String, _ allowed: CharacterSet) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
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

    static func redact(_ conninfo: String) -> String {
        guard let given = libpqOptions(conninfo) else { return unparsable }
        // A service file may set what the text leaves out: only what is given is shown then.
        let service =
            given["service"] ?? (given["host"] == nil ? ProcessInfo.processInfo.environment["PGSERVICE"] : nil)
        let options = service == nil ? given.merging(defaults()) { given, _ in given } : given
        // `hostaddr` is the address dialled: in the query when a host name is shown, else the host.
        let hostaddrInQuery = options["host"] != nil
        let hosts = (options["host"] ?? options["hostaddr"] ?? "").split(
            separator: ",", omittingEmptySubsequences: false
        )
        .map(String.init)
        // An empty port in a list is the default one (`postgresql://u@h1,h2:5433/db`: h1's is 5432).
        let defaultPort = service == nil ? defaults()["port"] ?? "5432" : ""
        let ports = (options["port"] ?? defaultPort).split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? defaultPort : String($0) }
        guard ports.allSatisfy({ $0.isEmpty && service != nil || Int($0).map { (1...65535).contains($0) } ?? false }),
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
                if !host.isEmpty { query.append("host=" + encoded(host, plainInQuery)) }
                if !port.isEmpty { query.append("port=\(port)") }
                continue
            }
            let name = host.contains(":") ? "[\(encoded(host, plainInQuery))]" : encoded(host, plainInHost)
            shown.append(port.isEmpty ? name : "\(name):\(port)")
        }
        if let service { query.append("service=" + encoded(service, plainInQuery)) }
        for keyword in shownOptions where keyword != "hostaddr" || hostaddrInQuery {
            if let value = given[keyword] { query.append(keyword + "=" + encoded(value, plainInQuery)) }
        }
        let user_ = user.isEmpty ? "" : user + "@"
        return "postgres://\(user_)\(shown.joined(separator: ","))/\(database)"
            + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// What a connection string libpq does not parse shows as.
    static let unparsable = "postgres://(a connection string that does not parse; not shown)"

    /// A URI whose password holds an unencoded `@` (`postgres://u:p@ss@host/db`): libpq takes
    /// the first `@` as the end of the user part (and `ss@host` as the host, showing a piece
    /// of the password in its messages); the last `@` before the path ends it, as URL parsers
    /// read it, so the earlier ones are percent-encoded.
    static func encodingEarlierAts(_ uri: String) -> String {
        guard let start = uri.range(of: "://")?.upperBound else { return uri }
        let end = uri[start...].firstIndex { $0 == "/" || $0 == "?" } ?? uri.endIndex
        let authority = uri[start..<end]
        guard let last = authority.lastIndex(of: "@"), authority[..<last].contains("@") else { return uri }
        let user = authority[..<last].replacingOccurrences(of: "@", with: "%40")
        return String(uri[..<start]) + user + String(uri[last...])
    }
}
