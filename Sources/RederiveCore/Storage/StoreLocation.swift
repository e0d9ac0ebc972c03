import Foundation

/// Where a store is, as `--db` or a pipeline's `store:` names it, parsed once: a PostgreSQL
/// server when the server engine reads the text as a connection string (a `postgres://` or
/// `postgresql://` URI, `key=value` pairs such as `host=… dbname=…`, `service=NAME`: libpq's
/// parse, registered by `RederivePostgres`), else a SQLite file path. The core links no
/// database client: without a server engine only a `postgres://` URI names a server.
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
        } else if RecordStores.isServerConnectionString(text) {
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
    /// as it is; a server as its engine rebuilds it (`postgres://user@host:port/dbname` from
    /// libpq's parse, see `PostgresConninfo`), or with no server engine the scheme alone; no
    /// password, no other option.
    package var redacted: String {
        switch self {
        case .sqlite(let path): return path
        case .unknownScheme(let scheme): return "\(scheme)://(not shown)"
        case .server(let conninfo): return RecordStores.redactedServer(conninfo)
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
}
