import Synchronization

/// Opens stores by the text that names them (`--db`, `store:`): SQLite for a path, another
/// engine for a URL whose scheme was registered (the command line registers `postgres`).
package enum RecordStores {
    /// Opens a store as `mode` says (`.readOnly` writes and migrates nothing).
    package typealias Opener =
        @Sendable (_ location: String, _ mode: Store.OpenMode) throws(RederiveError) -> any RecordStore

    private static let openers = Mutex<[String: Opener]>([:])

    /// Makes `scheme://…` locations open with `opener`.
    package static func register(scheme: String, _ opener: @escaping Opener) {
        openers.withLock { $0[scheme.lowercased()] = opener }
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
    /// can be opened as `mode` says (`Store.check`); a server URL is checked when opened.
    /// Call it before taking the run lock, so a refused file gets no `.lock` beside it.
    package static func check(_ location: String, mode: Store.OpenMode) throws(RederiveError) {
        if isURL(location) { return }
        try Store.check(path: location, mode: mode)
    }

    /// Opens the store `location` names.
    package static func open(_ location: String, mode: Store.OpenMode) throws(RederiveError) -> any RecordStore {
        guard let scheme = scheme(of: location) else { return try Store(path: location, mode: mode) }
        if scheme == "postgresql" || scheme == "postgres" {
            let opener = openers.withLock { $0["postgres"] }
            guard let opener else { throw .usage("\(location): this build has no PostgreSQL engine") }
            return try opener(location, mode)
        }
        let opener = openers.withLock { $0[scheme] }
        guard let opener else { throw .usage("\(scheme)://: no store engine for this scheme (postgres:// or a path)") }
        return try opener(location, mode)
    }
}
