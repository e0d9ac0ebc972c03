/// One store engine as the command line registers it with `RecordStores` (FluentKit's
/// driver configurations in `Databases`): which locations it reads, how one is shown and
/// whether it holds a secret, what the engine can do, and how it checks and opens a store.
/// The core names no engine: it asks the registered ones.
package struct StoreEngine: Sendable {
    /// Opens a store as `mode` says (`.readOnly` writes and migrates nothing).
    package typealias Opener =
        @Sendable (_ location: String, _ mode: StoreOpenMode) throws(RederiveError) -> any RecordStore

    /// What an engine's stores can do, which decides how commands use them.
    package struct Capabilities: Sendable, Equatable {
        /// A location is a path on this host (relative paths resolve, folders may be created,
        /// a preview's folder goes beside it).
        package var localFile = false
        /// One writing process at a time, kept by a lock file beside the store (`RunLock`).
        package var singleWriterLockFile = false
        /// Processes on any host split a derive by claiming ranges in the store
        /// (`DeriveRangeClaims`; `derive --processes N`).
        package var sharedRangeClaims = false

        /// Capabilities as given (none by default).
        package init(localFile: Bool = false, singleWriterLockFile: Bool = false, sharedRangeClaims: Bool = false) {
            (self.localFile, self.singleWriterLockFile) = (localFile, singleWriterLockFile)
            self.sharedRangeClaims = sharedRangeClaims
        }
    }

    /// The engine's name, for messages (`SQLite`, `PostgreSQL`).
    package var name: String
    /// The URL schemes whose locations are this engine's (`postgres` for `postgres://…`),
    /// even when it cannot parse one (the refusal comes when it is opened); the first is the
    /// one messages suggest.
    package var schemes: [String]
    /// Whether text that is no URL of another engine is a location of this one. An engine
    /// of local files is asked last: a path is what no other engine reads as its own.
    package var recognizes: @Sendable (_ text: String) -> Bool
    /// The location as the engine reads it (a repair of what its client would misread).
    package var normalize: @Sendable (_ location: String) -> String
    /// The location's one shown form (no password).
    package var redact: @Sendable (_ location: String) -> String
    /// Whether the location holds a password (the command line hides it from `ps`).
    package var holdsPassword: @Sendable (_ location: String) -> Bool
    /// What the engine can do.
    package var capabilities: Capabilities
    /// The name of the engine's newest schema migration (`rederive --version`).
    package var schemaVersion: String?
    /// Decides, without creating or locking anything, whether a location can be opened as
    /// the mode says (before the run lock is taken).
    package var check: @Sendable (_ location: String, _ mode: StoreOpenMode) throws(RederiveError) -> Void
    /// Opens the store at a location.
    package var open: Opener
    /// What to warn of, once, before connecting to a location (TLS that does not verify the
    /// server, to a remote host); nil for nothing.
    package var connectionWarning: @Sendable (_ location: String) throws(RederiveError) -> String? = { _ in nil }

    /// Describes an engine; by default it reads no location but its schemes', shows a
    /// location as it is, holds no password and checks nothing before opening.
    package init(
        name: String, schemes: [String] = [], capabilities: Capabilities, schemaVersion: String? = nil,
        recognizes: @escaping @Sendable (_ text: String) -> Bool = { _ in false },
        normalize: @escaping @Sendable (_ location: String) -> String = { $0 },
        redact: @escaping @Sendable (_ location: String) -> String = { $0 },
        holdsPassword: @escaping @Sendable (_ location: String) -> Bool = { _ in false },
        check: @escaping @Sendable (_ location: String, _ mode: StoreOpenMode) throws(RederiveError) -> Void = {
            _, _ throws(RederiveError) in
        },
        open: @escaping Opener
    ) {
        (self.name, self.schemes, self.capabilities, self.schemaVersion) = (name, schemes, capabilities, schemaVersion)
        (self.recognizes, self.normalize, self.redact, self.holdsPassword) = (
            recognizes, normalize, redact, holdsPassword
        )
        (self.check, self.open) = (check, open)
    }
}
