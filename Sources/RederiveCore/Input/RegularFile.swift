#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens input files only when they are regular files, without ever blocking: opening a
/// FIFO for reading waits for a writer (forever, deaf to SIGTERM), and a device or socket
/// is no export either.
public enum RegularFile {
    /// What kind of non-regular file `mode` is, e.g. `"a FIFO"`; nil for a regular file.
    public static func nonRegularKind(mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    /// Why `path` (symbolic links followed) cannot be read as a regular file, or nil when it
    /// can be tried. Only `stat`: nothing is opened.
    public static func refusal(path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        return nonRegularKind(mode: info.st_mode).map { "\($0), not a regular file: refusing to read it" }
    }

    /// Opens `path` for reading when it is a regular file. Checked with `stat` before the
    /// open, and again on the open descriptor (opened non-blocking, so a FIFO swapped in
    /// between the two cannot block either). On failure, the reason.
    public static func openForReading(path: String) -> Result<UnsafeMutablePointer<FILE>, OpenError> {
        if let reason = refusal(path: path) { return .failure(OpenError(reason: reason)) }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .failure(OpenError(reason: String(cString: strerror(errno)))) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            return .failure(OpenError(reason: reason))
        }
        if let kind = nonRegularKind(mode: info.st_mode) {
            close(fd)
            return .failure(OpenError(reason: "\(kind), not a regular file: refusing to read it"))
        }
        // Back to blocking reads: O_NONBLOCK was only for the open.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        guard let file = fdopen(fd, "rb") else {
            let reason = String(cString: strerror(errno))
            close(fd)
            return .failure(OpenError(reason: reason))
        }
        return .success(file)
    }

    /// Why a file could not be opened as a regular file.
    public struct OpenError: Error, Sendable {
        /// `strerror` text, or what kind of non-regular file it is.
        public var reason: String
    }
}
