import RederiveCore

extension PostgresConninfo {
    /// The `sslmode`s that check the server's certificate: with any other, an impostor on the
    /// path (DNS, ARP, a pod network) is answered as the server, password included.
    static let verifyingModes: Set<String> = ["verify-ca", "verify-full"]

    /// The warning to give once before connecting as `conninfo` says, nil when none is due: a
    /// host that is not this machine (neither a Unix-domain socket nor loopback) reached with
    /// an effective `sslmode` below `verify-ca` (the string's, else `PGSSLMODE`, else libpq's
    /// default `prefer`, which falls back to plain text). The hosts are the string's `hostaddr`
    /// or `host`, else `PGHOSTADDR` or `PGHOST`; a service file's are not known here, so a
    /// connection by service alone gets no warning. `REDERIVE_TLS_WARNING=off` silences it.
    /// A pure function of its arguments and libpq's parse.
    static func unverifiedTLSWarning(
        _ conninfo: String, environment: [String: String]
    ) throws(RederiveError) -> String? {
        guard try EnvironmentSettings.warnsOfPlainConnections(environment), let given = libpqOptions(conninfo) else {
            return nil
        }
        let mode = given["sslmode"] ?? environment["PGSSLMODE"] ?? "prefer"
        guard !verifyingModes.contains(mode) else { return nil }
        let hosts = list(given["host"] ?? environment["PGHOST"])
        let addresses = list(given["hostaddr"] ?? environment["PGHOSTADDR"])
        let service = given["service"] ?? environment["PGSERVICE"]
        if service != nil, hosts.isEmpty, addresses.isEmpty { return nil }
        // Each entry connects to its address when it has one, else to its host name or socket.
        let targets = (0..<max(hosts.count, addresses.count)).map { index in
            let address = index < addresses.count ? addresses[index] : ""
            return address.isEmpty ? (index < hosts.count ? hosts[index] : "") : address
        }
        guard let remote = targets.first(where: { !isLocal($0) }) else { return nil }
        return "\(redact(conninfo)): connects to \(remote) with sslmode=\(mode), which does not verify the server: "
            + "anyone able to impersonate it on the network gets the password and the data; use "
            + "sslmode=verify-full with sslrootcert=CA-FILE (docs/postgresql.md), or set "
            + "\(EnvironmentSettings.tlsWarning)=off to silence this warning"
    }

    private static func list(_ value: String?) -> [String] {
        value.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
    }

    /// Whether a host or address is this machine: empty (libpq's default socket), a socket
    /// folder (`/…`, or `@…` abstract), `localhost`, 127.0.0.0/8 or `::1`.
    static func isLocal(_ host: String) -> Bool {
        let name = host.lowercased()
        return name.isEmpty || name.hasPrefix("/") || name.hasPrefix("@") || name == "localhost"
            || name.hasPrefix("127.") || name == "::1" || name == "0:0:0:0:0:0:0:1"
    }
}
