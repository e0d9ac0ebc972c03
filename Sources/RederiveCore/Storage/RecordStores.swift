import Logging
import Synchronization

/// Opens stores by the text that names them (`--db`, `store:`), parsed once as a
/// `StoreLocation`. The core knows no engine: the command line registers SQLite
/// (`RederiveSQLite`) for file paths and PostgreSQL (`RederivePostgres`) for servers at
/// start-up.
package enum RecordStores {
    /// Opens a store as `mode` says (`.readOnly` writes and migrates nothing).
    package typealias Opener =
        @Sendable (_ location: String, _ mode: StoreOpenMode) throws(RederiveError) -> any RecordStore

    /// The engine for store files: how it checks a path before anything is locked or
    /// created, how it opens one, and the schema it writes (for `rederive --version`).
    package struct FileEngine: Sendable {
        /// The name of the engine's newest schema migration.
        package var schemaVersion: String
        /// Decides, without creating or locking anything, whether a path can be opened as
        /// the mode says.
        package var check: @Sendable (_ path: String, _ mode: StoreOpenMode) throws(RederiveError) -> Void
        /// Opens the store at a path.
        package var open: Opener

        /// Describes a file engine.
        package init(
            schemaVersion: String,
            check: @escaping @Sendable (_ path: String, _ mode: StoreOpenMode) throws(RederiveError) -> Void,
            open: @escaping Opener
        ) {
            (self.schemaVersion, self.check, self.open) = (schemaVersion, check, open)
        }
    }

    /// The engine for server stores: which texts are its connection strings, how one shows
    /// without its password, and how it opens one.
    package struct ServerEngine: Sendable {
        /// Whether text that is no `scheme://` URL is a connection string of this engine.
        package var recognizes: @Sendable (_ text: String) -> Bool
        /// The connection string's one shown form (no password).
        package var redact: @Sendable (_ conninfo: String) -> String
        /// Opens the store a connection string names.
        package var open: Opener
        /// Whether a connection string holds a password (`ArgumentRedaction.holdsPassword`).
        package var holdsPassword: @Sendable (_ text: String) -> Bool = { _ in false }
        /// What to warn of, once, before connecting as a connection string says (TLS that does
        /// not verify the server, to a remote host); nil for nothing.
        package var connectionWarning: @Sendable (_ conninfo: String) throws(RederiveError) -> String? = { _ in nil }

        /// Describes a server engine.
        package init(
            recognizes: @escaping @Sendable (_ text: String) -> Bool,
            redact: @escaping @Sendable (_ conninfo: String) -> String, open: @escaping Opener
        ) {
            (self.recognizes, self.redact, self.open) = (recognizes, redact, open)
        }
    }

    private static let fileEngine = Mutex<FileEngine?>(nil)
    private static let serverEngine = Mutex<ServerEngine?>(nil)
    private static let warned = Mutex<Set<String>>([])

    // Logs `warning` unless this process already did (a command may open its store twice).
    private static func warnOnce(_ warning: String) {
        guard warned.withLock({ $0.insert(warning).inserted }) else { return }
        Logger(label: "rederive.store").warning("\(warning)")
    }

    /// Makes file paths open with `engine` (the command line registers SQLite).
    package static func register(files engine: FileEngine) {
        fileEngine.withLock { $0 = engine }
    }

    /// Makes server locations open with `engine` (the command line registers PostgreSQL).
    package static func register(server engine: ServerEngine) {
        serverEngine.withLock { $0 = engine }
    }

    /// The schema the file engine writes, nil when none is registered.
    package static var fileSchemaVersion: String? { fileEngine.withLock { $0?.schemaVersion } }

    /// Whether the registered server engine reads `text` as a connection string (false
    /// without one).
    package static func isServerConnectionString(_ text: String) -> Bool {
        guard let engine = serverEngine.withLock({ $0 }) else { return false }
        return engine.recognizes(text)
    }

    /// Whether the registered server engine reads `text` as a connection string holding a
    /// password (false without one).
    package static func holdsPassword(_ text: String) -> Bool {
        guard let engine = serverEngine.withLock({ $0 }) else { return false }
        return engine.holdsPassword(text)
    }

    /// A server location's shown form, as its engine rebuilds it; without one, the scheme
    /// alone (nothing that might hold a secret).
    package static func redactedServer(_ conninfo: String) -> String {
        guard let engine = serverEngine.withLock({ $0 }) else { return "postgres://(not shown)" }
        return engine.redact(conninfo)
    }

    // The registered file engine, or the usage error a build without one gives.
    private static func files(_ location: String) throws(RederiveError) -> FileEngine {
        guard let engine = fileEngine.withLock({ $0 }) else {
            throw .usage("\(location): this build has no engine for store files")
        }
        return engine
    }

    /// The one form of `location` that messages, logs, reports, results files, the run
    /// history, lock files, metrics and default paths may show (`StoreLocation.redacted`):
    /// a file path as it is; a server as its engine rebuilds it from the connection string,
    /// without the password; for a scheme no engine has, the scheme alone.
    package static func redacted(_ location: String) -> String { StoreLocation(location).redacted }

    /// The URL scheme of `location` (`postgres` in `postgres://…`), nil for anything else.
    package static func scheme(of location: String) -> String? {
        guard let range = location.range(of: "://") else { return nil }
        let scheme = location[..<range.lowerBound]
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }) else {
            return nil
        }
        return scheme.lowercased()
    }

    /// Decides, without creating or locking anything, whether `location` names a store that
    /// can be opened as `mode` says (the file engine's check); a server is checked when
    /// opened. Call it before taking the run lock, so a refused file gets no `.lock` beside it.
    package static func check(_ location: String, mode: StoreOpenMode) throws(RederiveError) {
        guard case .sqlite(let path) = StoreLocation(location) else { return }
        try files(path).check(path, mode)
    }

    /// Opens the store `location` names.
    package static func open(_ location: String, mode: StoreOpenMode) throws(RederiveError) -> any RecordStore {
        switch StoreLocation(location) {
        case .sqlite(let path):
            return try files(path).open(path, mode)
        case .unknownScheme(let scheme):
            throw .usage("\(scheme)://: no store engine for this scheme (postgres:// or a path)")
        case .server(let conninfo):
            guard let engine = serverEngine.withLock({ $0 }) else {
                throw .usage("\(StoreLocation(location).redacted): this build has no PostgreSQL engine")
            }
            // Whatever authenticates the connection (the string, PGPASSWORD, ~/.pgpass) is in
            // this process's memory from now on: no core file may keep it.
            DumpProtection.passwordHeld()
            if let warning = try engine.connectionWarning(conninfo) { warnOnce(warning) }
            return try engine.open(conninfo, mode)
        }
    }
}
