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
    /// a socket or a block device (`OutputFile.target`), an existing file that is not
    /// writable, or its nearest existing folder is not a writable directory (a missing folder
    /// would be created, so it is fine). A FIFO or character device is fine: it is written
    /// into, never replaced.
    public static func writable(_ path: String, what: String) throws(RederiveError) {
        if path == "-" { return }
        _ = try OutputFile.target(of: path, what: what)
        if FileManager.default.fileExists(atPath: path) {
            guard access(path, W_OK) == 0 else {
                throw .usage(
                    "\(what) \(path): cannot be written (\(String(cString: strerror(errno)))); nothing was done")
            }
            return
        }
        try folderWritable(OutputFile.folder(of: path), for: path, what: what)
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
        try folderWritable(OutputFile.folder(of: path), for: path, what: what)
    }

    /// Throws a usage error when an output (what, path) is the store, one of its side files
    /// (`-wal`, `-shm`, `-journal`, `.lock`, the preview folder is not one) or one of the
    /// command's input files: the same file however it is spelled (device and inode when it
    /// exists, else the path with every existing folder resolved through links). `store`
    /// is nil for a server URL or a command without a store.
    public static func distinct(
        _ outputs: [(what: String, path: String)], store: String?, inputs: [String] = []
    ) throws(RederiveError) {
        var protected: [(FileIdentity, String)] = []
        if let store, !store.contains("://") {  // a server URL is no file

            protected.append((FileIdentity(store), "the store"))
            for suffix in ["-wal", "-shm", "-journal"] {
                protected.append((FileIdentity(store + suffix), "the store's \(suffix) file"))
            }
            protected.append((FileIdentity(store + ".lock"), "the store's run lock"))  // RunLock's name
        }
        for input in inputs where input != "-" { protected.append((FileIdentity(input), "an input (\(input))")) }
        for (what, path) in outputs where path != "-" {
            let identity = FileIdentity(path)
            if let (_, name) = protected.first(where: { $0.0 == identity }) {
                throw .usage("\(what) \(path): is \(name); refusing to overwrite it (nothing was done)")
            }
        }
    }

    /// A file as the kernel knows it (device and inode, when it exists), and its path with
    /// every existing folder resolved through links and the rest folded lexically
    /// (`./a/../s.sqlite` = `s.sqlite`, even when `a` does not exist: folders are created).
    struct FileIdentity: Equatable {
        var inode: (device: UInt64, inode: UInt64)?
        var resolved: String

        init(_ path: String) {
            var info = stat()
            if stat(path, &info) == 0 { inode = (UInt64(info.st_dev), UInt64(info.st_ino)) }
            resolved = Self.resolve(path)
        }

        static func == (a: Self, b: Self) -> Bool {
            if let x = a.inode, let y = b.inode, x == y { return true }
            return a.resolved == b.resolved
        }

        // The nearest existing ancestor through realpath, the rest appended lexically.
        private static func resolve(_ path: String) -> String {
            let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            var head = absolute
            var tail: [String] = []
            while true {
                if let real = realpath(head, nil) {
                    defer { free(real) }
                    let joined = ([String(cString: real)] + tail.reversed()).joined(separator: "/")
                    return normalized(joined)
                }
                let parent = OutputFile.folder(of: head)
                if parent == head || parent.isEmpty { return normalized(absolute) }
                tail.append((head as NSString).lastPathComponent)
                head = parent
            }
        }

        // Drops `.` and empty components and folds `name/..` pairs of an absolute path.
        private static func normalized(_ path: String) -> String {
            var parts: [Substring] = []
            for part in path.split(separator: "/") where part != "." {
                if part == ".." {
                    if !parts.isEmpty { parts.removeLast() }
                } else {
                    parts.append(part)
                }
            }
            return "/" + parts.joined(separator: "/")
        }
    }

    // Walks up to the nearest folder that exists: it must be a writable directory.
    private static func folderWritable(_ start: String, for path: String, what: String) throws(RederiveError) {
        var folder = start.isEmpty ? "." : start
        while !FileManager.default.fileExists(atPath: folder) {
            let parent = OutputFile.folder(of: folder)
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
