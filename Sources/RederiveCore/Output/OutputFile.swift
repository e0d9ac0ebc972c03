import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one policy for every file a command writes (reports, exports, summaries, metrics,
/// plans, results, previews, the status page). The name itself decides, never what a link
/// at it points to (`lstat`):
///
/// - a new name, an existing regular file or a symbolic link is written atomically: a
///   temporary file created exclusively (`O_CREAT|O_EXCL|O_NOFOLLOW`) in the destination
///   folder, renamed over the final name when complete, so a planted link is replaced and
///   its target never written;
/// - `-`, `/dev/stdout`, `/dev/stderr` and `/dev/fd/N` (`/proc/self/fd/N`) write to the
///   descriptor the process inherited (a duplicate of it): `--report /dev/stdout >> log`
///   appends, as the shell opened the log;
/// - a name that is itself a FIFO or a character device is written into directly and never
///   replaced, as Unix tools do (opened with `O_NOFOLLOW`, checked again on the descriptor);
/// - a link the operator named under `/dev/` (`/dev/tty`, `/dev/shm/x` as a link) is followed,
///   as the name is the system's: into a FIFO or device, or appended to a regular file, never
///   overwritten in place;
/// - a directory, socket or block device is refused (`OutputPathCheck` does so, exit 1,
///   before anything runs).
///
/// Nothing is ever unlinked but the temporary file this process created.
public enum OutputFile {
    /// What an output path names now.
    public enum Target: Sendable, Equatable {
        /// A new path, a regular file or a link (replaced, never followed): written through a
        /// temporary file, then renamed.
        case replaceable
        /// A FIFO or character device (or, under `/dev/`, a link the operator named): written
        /// in place, never replaced.
        case stream
        /// A descriptor the process inherited (`/dev/stdout`, `/dev/fd/N`): written through a
        /// duplicate of it, at its own offset and flags (`>> log` appends).
        case descriptor(Int32)
    }

    /// What `path` names, or a usage error naming `what` when it cannot take an output (a
    /// directory, a socket, a block device). Looks at the name itself: a symbolic link is
    /// replaced, never followed, unless it is a `/dev/` path the operator named.
    public static func target(of path: String, what: String) throws(RederiveError) -> Target {
        if let inherited = inheritedDescriptor(path) { return .descriptor(inherited) }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            // A new name: a new file, except under /dev, where nothing is created.
            return isUnderDev(path) ? .stream : .replaceable
        }
        var mode = info.st_mode & S_IFMT
        if mode == S_IFLNK {
            guard isUnderDev(path) else { return .replaceable }
            guard stat(path, &info) == 0 else {
                throw .usage("\(what) \(path): is a link to nothing; nothing was done")
            }
            mode = info.st_mode & S_IFMT
            if mode == S_IFREG { return .stream }  // appended to, never overwritten in place
        }
        switch mode {
        case S_IFREG: return .replaceable
        case S_IFIFO, S_IFCHR: return .stream
        case S_IFDIR: throw .usage("\(what) \(path): is a directory, not a file")
        case S_IFSOCK: throw .usage("\(what) \(path): is a socket, not a file; nothing was done")
        case S_IFBLK: throw .usage("\(what) \(path): is a block device, not a file; nothing was done")
        default: throw .usage("\(what) \(path): is not a regular file, FIFO or character device; nothing was done")
        }
    }

    /// The inherited descriptor `path` names: 1 for `-` and `/dev/stdout`, 2 for `/dev/stderr`,
    /// N for `/dev/fd/N` and `/proc/self/fd/N`; nil for any other path.
    public static func inheritedDescriptor(_ path: String) -> Int32? {
        switch path {
        case "-", "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                let digits = path.dropFirst(prefix.count)
                guard !digits.isEmpty, digits.count < 10, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                    return nil
                }
                return Int32(digits)
            }
            return nil
        }
    }

    /// The folder part of `path` (`a/b` → `a`, `/r` → `/`, `r` → empty), without Foundation's
    /// `deletingLastPathComponent`, which traps on a one-character relative name (`--report r`).
    public static func folder(of path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.hasSuffix("/") { text = text.dropLast() }
        guard let slash = text.lastIndex(of: "/") else { return "" }
        if slash == text.startIndex { return "/" }
        var folder = text[..<slash]
        while folder.count > 1, folder.hasSuffix("/") { folder = folder.dropLast() }
        return String(folder)
    }

    // A path in /dev is the system's: a link there is the operator's choice of device.
    private static func isUnderDev(_ path: String) -> Bool { path.hasPrefix("/dev/") }

    /// An output being written: `fd` is the temporary file (or the FIFO/device itself);
    /// `commit()` puts it in place, `abandon()` (or deinit) removes what this process created.
    public final class Handle {
        /// The final path.
        public let path: String
        /// The final path as messages show it (the operator's spelling of a path written
        /// through an `OutputFolder`).
        public let shownPath: String
        /// The temporary file, nil when writing straight into a FIFO or device.
        public let temporaryPath: String?
        /// The open descriptor (-1 once closed).
        public private(set) var fd: Int32
        // Whether the temporary file is still ours to remove (not yet renamed into place).
        private var ownsTemporary: Bool

        init(path: String, shownPath: String? = nil, temporaryPath: String?, fd: Int32) {
            (self.path, self.temporaryPath, self.fd) = (path, temporaryPath, fd)
            self.shownPath = shownPath ?? path
            ownsTemporary = temporaryPath != nil
        }

        deinit { abandon() }

        /// Gives up the descriptor to a `FILE` stream (`fdopen`); the caller closes it and
        /// then calls `commit(closed:)`.
        public func detachDescriptor() -> Int32 {
            let d = fd
            fd = -1
            return d
        }

        /// Writes all of `bytes` (looping over short writes and EINTR).
        public func write(_ bytes: ArraySlice<UInt8>) throws(RederiveError) {
            let failure: String? = bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n < 0, errno == EINTR { continue }
                    if n < 0 { return String(cString: strerror(errno)) }
                    if n == 0 { return "nothing written (is the device full?)" }
                    offset += n
                }
                return nil
            }
            if let failure { throw .io("\(shownPath): write failed: \(failure)") }
        }

        /// Flushes to disk, closes and renames the temporary file into place (a FIFO or
        /// device is only closed). `closed`: the descriptor was already closed by its
        /// `FILE` stream (after `detachDescriptor()` and `fsync`).
        public func commit(closed: Bool = false) throws(RederiveError) {
            if !closed {
                guard fd >= 0 else { return }
                let d = fd
                fd = -1
                let synced = temporaryPath == nil || fsync(d) == 0
                let code = errno
                if close(d) != 0 || !synced {
                    let reason = String(cString: strerror(synced ? errno : code))
                    removeTemporary()
                    throw .io("\(shownPath): write failed: \(reason)")
                }
            }
            guard let temporaryPath else { return }
            if rename(temporaryPath, path) != 0 {
                let reason = String(cString: strerror(errno))
                removeTemporary()
                throw .io("\(shownPath): cannot rename into place: \(reason)")
            }
            ownsTemporary = false
            TemporaryFiles.forget(temporaryPath)
        }

        /// Closes and removes the temporary file (never the final path); idempotent.
        public func abandon() {
            if fd >= 0 {
                close(fd)
                fd = -1
            }
            removeTemporary()
        }

        private func removeTemporary() {
            guard let temporaryPath, ownsTemporary else { return }
            ownsTemporary = false
            unlink(temporaryPath)
            TemporaryFiles.forget(temporaryPath)
        }
    }

    /// Opens `path` for writing as the policy says, creating its folder when absent (output
    /// folders such as `out/` and `reports/` are created on demand, as users expect).
    /// `shownAs`: the path as messages spell it, when `path` goes through an `OutputFolder`.
    public static func open(
        _ path: String, what: String = "output", shownAs: String? = nil
    ) throws(RederiveError) -> Handle {
        switch try target(of: path, what: what) {
        case .descriptor(let inherited):
            let fd = fcntl(inherited, F_DUPFD_CLOEXEC, 3)
            guard fd >= 0 else { throw .io("\(path): cannot write: \(String(cString: strerror(errno)))") }
            return Handle(path: path, shownPath: shownAs, temporaryPath: nil, fd: fd)
        case .stream:
            return Handle(path: path, shownPath: shownAs, temporaryPath: nil, fd: try openStream(path))
        case .replaceable:
            break
        }
        let directory = folder(of: path)
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw .io("\(directory): cannot create the directory: \(error.localizedDescription)")
            }
        }
        let (fd, temporary) = try createExclusive(near: path)
        return Handle(path: path, shownPath: shownAs, temporaryPath: temporary, fd: fd)
    }

    /// Opens a FIFO or device named by `path`: the name itself with `O_NOFOLLOW` (it must still
    /// be a FIFO or character device on the descriptor), or a link the operator named under
    /// `/dev/` for appending (never written over in place).
    private static func openStream(_ path: String) throws(RederiveError) -> Int32 {
        var named = stat()
        let followed = isUnderDev(path) && lstat(path, &named) == 0 && named.st_mode & S_IFMT == S_IFLNK
        let flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | (followed ? O_APPEND : O_NOFOLLOW)
        let fd = Glibc.open(path, flags)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "it became a symbolic link" : String(cString: strerror(errno))
            throw .io("\(path): cannot open: \(reason); nothing written")
        }
        // Checked again on the open descriptor: the name may have changed since.
        var info = stat()
        let kinds = followed ? [S_IFIFO, S_IFCHR, S_IFREG] : [S_IFIFO, S_IFCHR]
        guard fstat(fd, &info) == 0, kinds.contains(info.st_mode & S_IFMT) else {
            close(fd)
            throw .io("\(path): not a FIFO or character device any more; nothing written")
        }
        return fd
    }

    /// Writes `bytes` to `path` as the policy says (atomically, or into a FIFO or device).
    public static func write(
        _ bytes: some Collection<UInt8>, to path: String, what: String = "output", shownAs: String? = nil
    )
        throws(RederiveError)
    {
        let handle = try open(path, what: what, shownAs: shownAs)
        do {
            try handle.write(ArraySlice(bytes))
            try handle.commit()
        } catch {
            handle.abandon()
            throw error
        }
    }

    /// Writes `text` (UTF-8) to `path` as the policy says.
    public static func write(
        _ text: String, to path: String, what: String = "output", shownAs: String? = nil
    ) throws(RederiveError) {
        try write(Array(text.utf8), to: path, what: what, shownAs: shownAs)
    }

    /// Creates a new temporary file next to `path`, exclusively and never through a link:
    /// `PATH.partial`, or `PATH.partial-XXXXXX` when that name is taken (another run writing
    /// the same output, or a planted link or file). The writer holds a lock on it (`flock`)
    /// until the file is renamed into place or removed, so a `PATH.partial` nobody holds is
    /// one a killed run left (`kill -9`, a power cut): it is removed and the name reused
    /// (`removeIfLeftOver`). The file is registered for removal on SIGINT/SIGTERM
    /// (`TemporaryFiles`).
    static func createExclusive(near path: String) throws(RederiveError) -> (fd: Int32, path: String) {
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        let base = path + ".partial"
        var candidate = base
        var clearedLeftOver = false
        for attempt in 0..<100 {
            if attempt > 0 && !clearedLeftOver { candidate = base + "-" + randomSuffix() }
            clearedLeftOver = false
            // Registered before it exists: a signal handled on any thread just after the file
            // appears still removes it (blocking signals on this thread would not stop another
            // thread from taking one). Forgotten at once when the name was taken: only then is
            // the file someone else's, for the instant in between.
            TemporaryFiles.register(candidate)
            let fd = Glibc.open(candidate, flags, 0o666)
            let code = errno
            if fd >= 0 {
                // Locked, then checked to be still at the name: a run that found it in the
                // instant before the lock took it for left over and removed it. A file system
                // without locks writes unlocked (its left-overs are then never removed).
                let locked = flock(fd, LOCK_EX | LOCK_NB) == 0 || errno != EWOULDBLOCK
                if locked, sameFile(fd, candidate) { return (fd, candidate) }
                close(fd)
                TemporaryFiles.forget(candidate)
                continue
            }
            TemporaryFiles.forget(candidate)
            guard code == EEXIST || code == ELOOP else {
                throw .io("\(path): cannot create: \(String(cString: strerror(code)))")
            }
            if attempt == 0, code == EEXIST, removeIfLeftOver(candidate) { clearedLeftOver = true }
        }
        throw .io("\(path): cannot create a temporary file beside it (100 names taken)")
    }

    /// Removes `temporary` when a killed run of this user left it: a regular file, owned by
    /// this user, that no writer holds locked (opened without following a link and without
    /// blocking on a FIFO). Anything else there is left as it is. Returns whether it removed it.
    static func removeIfLeftOver(_ temporary: String) -> Bool {
        let fd = Glibc.open(temporary, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
            flock(fd, LOCK_EX | LOCK_NB) == 0, sameFile(fd, temporary)
        else { return false }
        return unlink(temporary) == 0
    }

    /// Whether `path` names (without following a link) the file open as `fd`.
    private static func sameFile(_ fd: Int32, _ path: String) -> Bool {
        var open = stat(), named = stat()
        guard fstat(fd, &open) == 0, lstat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    private static func randomSuffix() -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<8).map { _ in letters.randomElement()! })
    }
}
