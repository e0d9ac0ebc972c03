import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Expands command-line paths into the export files to read.
public enum ExportFiles {
    /// The export files found for some paths, and the files left out of the directories.
    public struct Resolution: Sendable, Equatable {
        /// Export files to read, sorted by path so reports come out in file order.
        public var files: [String]
        /// Files inside the given directories that are not read, each with the reason.
        public var ignored: [Ignored]
    }

    /// A file inside a given directory that is not read.
    public struct Ignored: Sendable, Equatable {
        /// Its path.
        public var path: String
        /// Why it is not read, e.g. `"names are case-sensitive: expected .jsonl or .jsonl.zst"`.
        public var reason: String
    }

    /// Files as given plus the `*.jsonl` / `*.jsonl.zst` files inside given directories
    /// (recursively), sorted by path. Checked before anything is read or written (a usage
    /// error, exit 1): every path must exist and be a regular file with an export name or a
    /// directory, and together they must hold at least one export. The other files inside
    /// the directories are left out with a warning on `log` that names them and why.
    public static func resolve(
        _ paths: [String], log: Logger = Logger(label: "rederive.input")
    ) throws(RederiveError) -> [String] {
        let resolution = try scan(paths)
        if !resolution.ignored.isEmpty { warn(resolution.ignored, log: log) }
        return resolution.files
    }

    /// One short warning for the files left out: named only when they look like a misnamed
    /// export (wrong case, other compression); the others (a README, drawings, a fuzz
    /// corpus) are counted, and listed at debug level (`--verbose`).
    static func warn(_ ignored: [Ignored], log: Logger) {
        let nearMisses = ignored.filter { !$0.reason.hasPrefix(notExportName) }
        let others = ignored.count - nearMisses.count
        var line = "ignored \(ignored.count) file(s) that are not exports"
        if !nearMisses.isEmpty { line += ": " + describe(nearMisses, limit: 5) }
        if others > 0 {
            line += nearMisses.isEmpty ? " " : "; "
            line += "(\(others) without an export name: `--verbose` lists them)"
            log.debug("\(describe(ignored, heading: "ignored"))")
        }
        log.warning("\(line)")
    }

    private static let notExportName = "not an export name"

    /// What `resolve` finds, without logging. Nothing is opened: files are classified from
    /// their names and `stat` alone, so a FIFO, socket or device is never read.
    public static func scan(_ paths: [String]) throws(RederiveError) -> Resolution {
        var files: [String] = []
        var ignored: [Ignored] = []
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else {
                if errno == ENOENT || errno == ENOTDIR { throw .usage("\(path): no such file or directory") }
                throw .usage("\(path): cannot access: \(String(cString: strerror(errno)))")
            }
            if info.st_mode & S_IFMT == S_IFDIR {
                try walk(directory: path, files: &files, ignored: &ignored)
            } else if let kind = RegularFile.nonRegularKind(mode: info.st_mode) {
                throw .usage("\(path): \(kind), not a regular file: refusing to read it")
            } else if ExportFileKind(path: path) == nil {
                throw .usage("\(path): not an export file (\(reason(notExport: path)))")
            } else {
                files.append(path)
            }
        }
        guard !files.isEmpty else {
            var message = "no export files (*.jsonl, *.jsonl.zst) in \(paths.joined(separator: ", "))"
            if !ignored.isEmpty { message += "; " + describe(ignored, heading: "ignored") }
            throw .usage(message)
        }
        return Resolution(files: Array(Set(files)).sorted(), ignored: ignored.sorted { $0.path < $1.path })
    }

    // Every entry below `directory`. Export-named entries go to `files` even when they are
    // not regular files: the reader then refuses them (`file_unreadable`) without opening
    // them, so they show in the report rather than vanish.
    private static func walk(directory: String, files: inout [String], ignored: inout [Ignored]) throws(RederiveError) {
        guard let walker = FileManager.default.enumerator(atPath: directory) else {
            throw .io("\(directory): cannot list the directory")
        }
        for case let name as String in walker {
            let full = (directory as NSString).appendingPathComponent(name)
            var info = stat()
            let statted = stat(full, &info) == 0
            if statted, info.st_mode & S_IFMT == S_IFDIR { continue }  // the walker goes into it
            if ExportFileKind(path: name) != nil {
                files.append(full)
            } else if !statted {
                ignored.append(Ignored(path: full, reason: String(cString: strerror(errno))))
            } else if let kind = RegularFile.nonRegularKind(mode: info.st_mode) {
                ignored.append(Ignored(path: full, reason: "\(kind), not a regular file"))
            } else {
                ignored.append(Ignored(path: full, reason: reason(notExport: name)))
            }
        }
    }

    /// Why a file name is not an export name, with the likely fix.
    static func reason(notExport name: String) -> String {
        let lower = name.lowercased()
        if ExportFileKind(path: lower) != nil {
            return "names are case-sensitive: expected .jsonl or .jsonl.zst"
        }
        for compressed in [".gz", ".bz2", ".xz", ".lz4", ".zip", ".zstd", ".zs"]
        where lower.hasSuffix(".jsonl" + compressed) {
            return "compressed as \(compressed): only zstd (.jsonl.zst) or plain .jsonl is read"
        }
        return notExportName + ": expected .jsonl or .jsonl.zst"
    }

    // "heading: a (why), b (why) and N more", at most 20 names.
    private static func describe(_ ignored: [Ignored], heading: String) -> String {
        "\(heading): " + describe(ignored, limit: 20)
    }

    // "a (why), b (why) and N more", at most `limit` names.
    private static func describe(_ ignored: [Ignored], limit: Int) -> String {
        let shown = ignored.prefix(limit).map { "\($0.path) (\($0.reason))" }.joined(separator: ", ")
        return shown + (ignored.count > limit ? " and \(ignored.count - limit) more" : "")
    }
}
