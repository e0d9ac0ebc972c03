import Synchronization

/// Opens stores by the text that names them (`--db`, `store:`), parsed once as a
/// `StoreLocation`: SQLite for a path, the PostgreSQL engine (the command line registers it)
/// for a connection string libpq reads.
package enum RecordStores {
    /// Opens a server store as `mode` says (`.readOnly` writes and migrates nothing).
    package typealias Opener =
        @Sendable (_ conninfo: String, _ mode: Store.OpenMode) throws(RederiveError) -> any RecordStore

    private static let serverOpener = Mutex<Opener?>(nil)

    /// Makes server locations open with `opener`.
    package static func register(server opener: @escaping Opener) {
        serverOpener.withLock { $0 = opener }
    }

    /// The one form of `location` that messages, logs, reports, results files, the run
    /// history, lock files, metrics and default paths may show (`StoreLocation.redacted`):
    /// a file path as it is; a server as rebuilt from libpq's parse of its connection string,
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
    /// can be opened as `mode` says (`Store.check`); a server is checked when opened.
    /// Call it before taking the run lock, so a refused file gets no `.lock` beside it.
    package static func check(_ location: String, mode: Store.OpenMode) throws(RederiveError) {
        guard case .sqlite(let path) = StoreLocation(location) else { return }
        try Store.check(path: path, mode: mode)
    }

    /// Opens the store `location` names.
    package static func open(_ location: String, mode: Store.OpenMode) throws(RederiveError) -> any RecordStore {
        switch StoreLocation(location) {
        case .sqlite(let path):
            return try Store(path: path, mode: mode)
        case .unknownScheme(let scheme):
            throw .usage("\(scheme)://: no store engine for this scheme (postgres:// or a path)")
        case .server(let conninfo):
            guard let opener = serverOpener.withLock({ $0 }) else {
                throw .usage("\(StoreLocation(location).redacted): this build has no PostgreSQL engine")
            }
            return try opener(conninfo, mode)
        }
    }
}
