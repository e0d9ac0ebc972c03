import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks, before a command opens or creates its store, that every file it will write can
/// be written: a bad `--report`, `--metrics-file` or `--out` then stops the command with
/// nothing touched, instead of failing after the store was created or a run committed.
public enum OutputPathCheck {
    /// Throws a usage error naming `what` when `path` cannot be written: it is a directory,
    /// an existing file that is not writable, or its nearest existing folder is not a
    /// writable directory (a missing folder would be created, so it is fine).
    public static func writable(_ path: String, what: String) throws(RederiveError) {
        if path == "-" { return }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw .usage("\(what) \(path): is a directory, not a file") }
            guard access(path, W_OK) == 0 else {
                throw .usage(
                    "\(what) \(path): cannot be written (\(String(cString: strerror(errno)))); nothing was done")
            }
            return
        }
        try folderWritable((path as NSString).deletingLastPathComponent, for: path, what: what)
    }

    /// The same for an output folder (a preview directory).
    public static func writableFolder(_ path: String, what: String) throws(RederiveError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .usage("\(what) \(path): is a file, not a folder") }
            guard access(path, W_OK) == 0 else {
                throw .usage(
                    "\(what) \(path): cannot be written (\(String(cString: strerror(errno)))); nothing was done")
            }
            return
        }
        try folderWritable((path as NSString).deletingLastPathComponent, for: path, what: what)
    }

    // Walks up to the nearest folder that exists: it must be a writable directory.
    private static func folderWritable(_ start: String, for path: String, what: String) throws(RederiveError) {
        var folder = start.isEmpty ? "." : start
        while !FileManager.default.fileExists(atPath: folder) {
            let parent = (folder as NSString).deletingLastPathComponent
            if parent.isEmpty || parent == folder { folder = parent.isEmpty ? "." : parent; break }
            folder = parent
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .usage("\(what) \(path): \(folder) is not a folder")
        }
        guard access(folder, W_OK) == 0 else {
            throw .usage(
                "\(what) \(path): cannot write in \(folder) (\(String(cString: strerror(errno)))); nothing was done")
        }
    }
}
