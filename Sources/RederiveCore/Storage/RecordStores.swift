import Synchronization

/// Opens stores by the text that names them (`--db`, `store:`): the file engine for a path,
/// another engine for a URL whose scheme was registered. The core knows no engine: the
/// command line registers SQLite (`RederiveSQLite`) for files and PostgreSQL
/// (`RederivePostgres`) for `postgres://` at start-up.
package enum RecordStores {
    /// Opens a store as `mode` says (`.readOnly` writes and migrates nothing).
    package typealias Opener =
        @Sendable (_ location: String, _ mode: StoreOpenMode) throws(RederiveError) -> any RecordStore

    /// The one redacted form of a location the engine parses (see `redacted(_:)`).
    package typealias Redactor = @Sendable (_ location: String) -> String

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

    private static let openers = Mutex<[String: (open: Opener, redact: Redactor)]>([:])
    private static let fileEngine = Mutex<FileEngine?>(nil)

    /// Makes paths open with `engine` (the command line registers SQLite).
    package static func register(files engine: FileEngine) {
        fileEngine.withLock { $0 = engine }
    }

    /// The schema the file engine writes, nil when none is registered.
    package static var fileSchemaVersion: String? { fileEngine.withLock { $0?.schemaVersion } }

    // The registered file engine, or the usage error a build without one gives.
    private static func files(_ location: String) throws(RederiveError) -> FileEngine {
        guard let engine = fileEngine.withLock({ $0 }) else {
            throw .usage("\(location): this build has no engine for store files")
        }
        return engine
    }

    /// Makes `scheme://…` locations open with `opener` and show as `redactor` gives them.
    package static func register(scheme: String, redactor: @escaping Redactor, _ opener: @escaping Opener) {
        openers.withLock { $0[scheme.lowercased()] = (opener, redactor) }
    }

    /// The one form of `location` that messages, logs, reports, results files, the run
    /// history, lock files, metrics and default paths may show: a file path as it is; a URL
    /// as its engine rebuilds it from the connection options it parses, without the password
    /// (`postgres://user@host:port/dbname`); for a scheme no engine is registered for, the
    /// scheme alone (nothing that might hold a secret).
    package static func redacted(_ location: String) -> String {
        guard let scheme = scheme(of: location) else { return location }
        let key = scheme == "postgresql" ? "postgres" : scheme
        guard let redact = openers.withLock({ $0[key]?.redact }) else { return "\(scheme)://(not shown)" }
        return redact(location)
    }

    /// The URL scheme of `location` (`postgres` in `postgres://…`), nil for a file path.
    package static func scheme(of location: String) -> String? {
        guard let range = location.range(of: "://") else { return nil }
        let scheme = location[..<range.lowerBound]
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }) else {
            return nil
        }
        return scheme.lowercased()
    }

    /// Whether `location` names a store on a server rather than a file.
    package static func isURL(_ location: String) -> Bool { scheme(of: location) != nil }

    /// Decides, without creating or locking anything, whether `location` names a store that
    /// can be opened as `mode` says (the file engine's check); a server URL is checked when
    /// opened. Call it before taking the run lock, so a refused file gets no `.lock` beside it.
    package static func check(_ location: String, mode: StoreOpenMode) throws(RederiveError) {
        if isURL(location) { return }
        try files(location).check(location, mode)
    }

    /// Opens the store `location` names.
    package static func open(_ location: String, mode: StoreOpenMode) throws(RederiveError) -> any RecordStore {
        guard let scheme = scheme(of: location) else { return try files(location).open(location, mode) }
        if scheme == "postgresql" || scheme == "postgres" {
            let opener = openers.withLock { $0["postgres"]?.open }
            guard let opener else { throw .usage("\(scheme)://: this build has no PostgreSQL engine") }
            return try opener(location, mode)
        }
        let opener = openers.withLock { $0[scheme]?.open }
        guard let opener else { throw .usage("\(scheme)://: no store engine for this scheme (postgres:// or a path)") }
        return try opener(location, mode)
    }
}
