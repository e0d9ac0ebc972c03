import Logging
import Synchronization

/// The registry of store engines (FluentKit's `Databases`): any number of `StoreEngine`s,
/// registered by the command line at start-up, and the one place a location (`--db`,
/// `store:`) is given to its engine (`StoreLocation`), shown, checked and opened. The core
/// knows no engine itself.
package enum RecordStores {
    private static let engines = Mutex<[StoreEngine]>([])

    /// Registers `engine` (replacing an engine of the same name): its locations open with it.
    package static func register(_ engine: StoreEngine) {
        engines.withLock { list in
            if let index = list.firstIndex(where: { $0.name == engine.name }) {
                list[index] = engine
            } else {
                list.append(engine)
            }
        }
    }

    private static let warned = Mutex<Set<String>>([])

    // Logs `warning` unless this process already did (a command may open its store twice).
    private static func warnOnce(_ warning: String) {
        guard warned.withLock({ $0.insert(warning).inserted }) else { return }
        Logger(label: "rederive.store").warning("\(warning)")
    }

    /// Removes the engine named `name` (tests that register a fake one).
    package static func unregister(_ name: String) {
        engines.withLock { $0.removeAll { $0.name == name } }
    }

    /// The registered engines, in the order locations are offered to them: by registration,
    /// an engine of local files last.
    package static var registered: [StoreEngine] {
        let list = engines.withLock { $0 }
        return list.filter { !$0.capabilities.localFile } + list.filter(\.capabilities.localFile)
    }

    /// The schema the engine of local files writes, nil when none is registered.
    package static var fileSchemaVersion: String? {
        registered.first { $0.capabilities.localFile }?.schemaVersion
    }

    /// The engine that reads `text` as its location (nil: no registered engine does).
    package static func engine(reading text: String) -> StoreEngine? {
        let engines = registered
        if let scheme = scheme(of: text) { return engines.first { $0.schemes.contains(scheme) } }
        return engines.first { $0.capabilities.localFile || $0.recognizes(text) }
    }

    /// The one form of `location` that messages, logs, reports, results files, the run
    /// history, lock files, metrics and default paths may show (`StoreLocation.redacted`).
    package static func redacted(_ location: String) -> String { StoreLocation(location).redacted }

    /// Whether `text` is a location holding a password (what the command line hides from `ps`
    /// and shows only `redacted`).
    package static func holdsPassword(_ text: String) -> Bool { StoreLocation(text).holdsPassword }

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
    /// can be opened as `mode` says (its engine's check). Call it before taking the run lock,
    /// so a refused file gets no `.lock` beside it.
    package static func check(_ location: String, mode: StoreOpenMode) throws(RederiveError) {
        let parsed = StoreLocation(location)
        try parsed.engine(orThrow: location).check(parsed.text, mode)
    }

    /// Opens the store `location` names.
    package static func open(_ location: String, mode: StoreOpenMode) throws(RederiveError) -> any RecordStore {
        let parsed = StoreLocation(location)
        let engine = try parsed.engine(orThrow: location)
        if !engine.capabilities.localFile {
            // Whatever authenticates the connection (the string, PGPASSWORD, ~/.pgpass) is in
            // this process's memory from now on: no core file may keep it.
            DumpProtection.passwordHeld()
        }
        if let warning = try engine.connectionWarning(parsed.text) { warnOnce(warning) }
        return try engine.open(parsed.text, mode)
    }
}
