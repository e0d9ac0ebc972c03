/// The wording of a store server that cannot be reached, or that went away, in one place: an
/// engine hands over its client library's message (whatever the library's error types) and
/// gets one line for people, with what to check and what to do next.
public enum ConnectionFailure {
    /// The line for `store` (as shown: no password) when `doing` ("connect", "write the
    /// range"...) failed with the client library's `message`. A message the server wrote
    /// itself (a missing database, a refused password) is kept as it is, on one line.
    public static func line(store: String, doing: String, message: String) -> String {
        let text = oneLine(message)
        let lower = text.lowercased()
        func has(_ parts: String...) -> Bool { parts.contains { lower.contains($0) } }
        let cause: String?
        if has("connection refused") {
            cause = "connection refused: is the server running, and listening on that host and port?"
        } else if has("timed out", "timeout") {
            cause = "no answer in time: is the host reachable (network, firewall) and the port right?"
        } else if has("no route to host", "network is unreachable", "host is unreachable") {
            cause = "the host cannot be reached from here (network, firewall)"
        } else if has(
            "name or service not known", "nodename nor servname", "could not translate host name",
            "unknown host", "name resolution", "failed to resolve")
        {
            cause = "the host name cannot be resolved: check the host in the store URL"
        } else if has(
            "connection to the server was lost", "connection reset", "connection closed", "broken pipe",
            "server closed the connection", "terminating connection")
        {
            cause = "the connection to the server was lost"
        } else {
            cause = nil
        }
        guard let cause else { return "\(store): cannot \(doing): \(text)" }
        // Every write is committed per batch or range: running the same command again goes on.
        return "\(store): cannot \(doing): \(cause); run the same command again once the server is reachable"
    }

    /// `message` on one line, its whitespace runs folded to one space.
    private static func oneLine(_ message: String) -> String {
        message.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
