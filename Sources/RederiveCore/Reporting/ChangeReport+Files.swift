import Foundation
import Logging

extension ChangeReport {
    /// The files a preview writes into its directory: the change list, then one per renderer
    /// (`ChangeReport.renderers`).
    public struct Files: Sendable, Equatable {
        /// The preview directory.
        public var directory: String

        /// The path of the file named `name` in the directory.
        public func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

        /// `changes.jsonl.zst`: every changed record with its before and after values.
        public var changes: String { path(FileName.changes) }
        /// `preview.md`: the report for reading in a terminal or a code review.
        public var markdown: String { path(FileName.markdown) }
        /// `preview.json`: the same numbers for scripts.
        public var json: String { path(FileName.json) }
        /// `preview.html`: the report with charts, self-contained (opens from a file).
        public var html: String { path(FileName.html) }

        /// Every path, in the order they are written.
        public var all: [String] { [changes] + ChangeReport.renderers.map { path($0.fileName) } }
    }

    /// The file names inside a preview directory.
    public enum FileName {
        /// The Markdown report.
        public static let markdown = "preview.md"
        /// The JSON report.
        public static let json = "preview.json"
        /// The HTML report.
        public static let html = "preview.html"
        /// The full change list.
        public static let changes = "changes.jsonl.zst"
    }

    /// The default preview directory for a store: `PATH-preview` next to a store file; for a
    /// server store (a URL names no folder, and may hold a password) a folder named after the
    /// database in the user's state directory, `$XDG_STATE_HOME/rederive/previews/USER_HOST_PORT_DB`
    /// (`~/.local/state` without it), never the working directory (a repository, say), and
    /// never shared by two databases. Known before the store is opened, so it is checked
    /// before anything is written.
    public static func defaultDirectory(
        forStore location: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        guard StoreLocation(location).filePath == nil else { return location + "-preview" }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        let state = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/state"
        var name = RecordStores.redacted(location)
        if let scheme = name.range(of: "://") { name = String(name[scheme.upperBound...]) }
        let safe = String(
            name.unicodeScalars.map { scalar -> Character in
                let ok =
                    scalar.isASCII
                    && (CharacterSet.alphanumerics.contains(scalar) || "-.".unicodeScalars.contains(scalar))
                return ok ? Character(scalar) : "_"
            })
        return state + "/rederive/previews/" + (safe.isEmpty ? "server" : safe)
    }

    /// The files a preview writes into `directory`.
    public static func files(inDirectory directory: String) -> Files { Files(directory: directory) }

    /// Writes `changes.jsonl.zst`, then each renderer's file (`preview.json`, `preview.md`,
    /// `preview.html`) into `directory` (created when absent, never through a link at its name:
    /// `OutputFolder`), each through a temporary name renamed into place, so a reader never sees
    /// half a file; logs each path. Returns the paths.
    @discardableResult
    public func write(toDirectory directory: String) throws(RederiveError) -> Files {
        let folder = try OutputFolder(directory, what: "preview")
        let files = Self.files(inDirectory: directory)
        let log = Logger(label: "rederive.preview")
        if let changeList {
            try changeList.place(at: folder.writePath(FileName.changes), shownAs: files.changes)
        } else {
            // No list was kept: an empty one, so the directory always has the same files.
            do {
                try ZstdWriter(path: folder.writePath(FileName.changes)).finish()
            } catch {
                throw .io(error.message)
            }
        }
        log.info("wrote \(files.changes) (\(wouldChange) changed records)")
        for renderer in Self.renderers {
            let shown = files.path(renderer.fileName)
            try OutputFile.write(
                renderer.render(self), to: folder.writePath(renderer.fileName), what: "preview", shownAs: shown)
            log.info("wrote \(shown)")
        }
        return files
    }
}
