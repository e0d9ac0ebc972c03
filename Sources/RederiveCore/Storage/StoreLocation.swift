/// Where a store is, as `--db` or a pipeline's `store:` names it, parsed once: the registered
/// engine that reads it (`RecordStores.engine(reading:)`: a URL by its scheme, other text by
/// the engines' own parse, a path by the engine of local files), and the text as that engine
/// reads it. What the location's engine can do (`StoreEngine.Capabilities`) decides how
/// commands treat it; the core names no engine.
package struct StoreLocation: Sendable {
    /// The engine that reads it, nil when none does (an unknown scheme, or no engine registered).
    package var engine: StoreEngine?
    /// The location as its engine reads it (it may hold a password: show `redacted`, never this).
    package var text: String
    /// The URL scheme, if the location is a URL.
    package var scheme: String?

    /// Parses `text`.
    package init(_ text: String) {
        scheme = RecordStores.scheme(of: text)
        engine = RecordStores.engine(reading: text)
        self.text = engine?.normalize(text) ?? text
    }

    /// What the engine can do (nothing without one).
    package var capabilities: StoreEngine.Capabilities { engine?.capabilities ?? .init() }

    /// Whether commands take a run lock file beside the store (one writer at a time).
    package var holdsRunLockFile: Bool { capabilities.singleWriterLockFile }

    /// Whether derive processes split the work by claiming ranges in the store.
    package var claimsRanges: Bool { capabilities.sharedRangeClaims }

    /// The path, when the location is a local file: its engine's kind, or text no engine
    /// reads that is no URL (a path, to a build without a file engine).
    package var filePath: String? { capabilities.localFile || (engine == nil && scheme == nil) ? text : nil }

    /// Whether the location holds a password.
    package var holdsPassword: Bool { engine?.holdsPassword(text) ?? false }

    /// The one form messages, logs, reports, the run history and lock files may show: as its
    /// engine shows it (no password, no other option); for a URL no engine reads, the scheme
    /// alone; other text no engine reads, as it is (a path, to a build without a file engine).
    package var redacted: String {
        if let engine { return engine.redact(text) }
        return scheme.map { "\($0)://(not shown)" } ?? text
    }

    /// Its engine, or the usage error a location no engine reads gives (`original` as given).
    func engine(orThrow original: String) throws(RederiveError) -> StoreEngine {
        if let engine { return engine }
        let known = RecordStores.registered.compactMap(\.schemes.first).map { "\($0)://" }
        let hint = (known + (RecordStores.fileSchemaVersion == nil ? [] : ["a path"])).joined(separator: " or ")
        if let scheme {
            throw .usage("\(scheme)://: no store engine for this scheme (\(hint.isEmpty ? "none registered" : hint))")
        }
        throw .usage("\(original): this build has no engine for store files")
    }
}

extension StoreLocation: Equatable {
    /// The same engine reading the same text.
    package static func == (a: StoreLocation, b: StoreLocation) -> Bool {
        a.engine?.name == b.engine?.name && a.text == b.text
    }
}
