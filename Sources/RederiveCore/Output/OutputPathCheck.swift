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
    /// a socket or a block device (`OutputFile.target`), an inherited descriptor that is not
    /// open for writing, an existing file or FIFO that is not writable, or its nearest existing
    /// folder is not a writable directory (a missing folder would be created, so it is fine). A
    /// FIFO or character device is fine: it is written into, never replaced. A link at the name
    /// is replaced, so only its folder counts.
    public static func writable(_ path: String, what: String) throws(RederiveError) {
        let target = try OutputFile.target(of: path, what: what)
        if case .descriptor(let fd) = target {
            let flags = fcntl(fd, F_GETFL)
            guard flags >= 0, flags & O_ACCMODE != O_RDONLY else {
                throw .usage("\(what) \(path): descriptor \(fd) is not open for writing; nothing was done")
            }
            return
        }
        var info = stat()
        let exists = lstat(path, &info) == 0
        if exists, target == .stream || info.st_mode & S_IFMT == S_IFREG {
            guard access(path, W_OK) == 0 else {
                throw .usage(
                    "\(what) \(path): cannot be written (\(String(cString: strerror(errno)))); nothing was done")
            }
            return
        }
        try folderWritable(OutputFile.folder(of: path), for: path, what: what)
    }

    /// The same for an output folder (a preview directory, a drawings folder): a symbolic link
    /// at its name is refused, never followed (`OutputFolder` opens it the same way).
    public static func writableFolder(_ path: String, what: String) throws(RederiveError) {
        var info = stat()
        if lstat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFDIR: break
            case S_IFLNK: throw .usage(OutputFolder.linkRefusal(path, what: what))
            default: throw .usage("\(what) \(path): is a file, not a folder")
            }
            guard access(path, W_OK) == 0 else {
                throw .usage(
                    "\(what) \(path): cannot be written (\(String(cString: strerror(errno)))); nothing was done")
            }
            return
        }
        try folderWritable(OutputFile.folder(of: path), for: path, what: what)
    }

    /// Throws a usage error when an output (what, path) is the store, one of its side files
    /// (`-wal`, `-shm`, `-journal`, `.lock`, the preview folder is not one), one of the
    /// command's input files or another of its outputs: the same file however it is spelled
    /// (device and inode when it exists, else the path with every existing folder resolved
    /// through links). Outputs that are streams (`-`, `/dev/null`, a FIFO) may be shared.
    /// `store` is nil for a server URL or a command without a store.
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
        var written: [(FileIdentity, String)] = []
        for (what, path) in outputs where path != "-" {
            let identity = FileIdentity(path)
            if let (_, name) = protected.first(where: { $0.0 == identity }) {
                throw .usage("\(what) \(path): is \(name); refusing to overwrite it (nothing was done)")
            }
            // Two outputs in one file would leave only the last one written.
            if let (_, other) = written.first(where: { $0.0 == identity }) {
                throw .usage(
                    "\(what) \(path): is also the \(other) output; two outputs in one file would keep only one "
                        + "(nothing was done)")
            }
            if (try? OutputFile.target(of: path, what: what)) == .replaceable { written.append((identity, what)) }
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
