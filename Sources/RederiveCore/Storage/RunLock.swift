import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one-writing-run-per-store lock: `flock(2)` on `STORE.lock` next to the store, held
/// for the whole run (a pipeline holds it across its stages). The kernel drops the lock
/// when its process dies — `kill -9`, a crash, power loss — so a lock left behind is free
/// for the next run; the file still names its last holder, and the taker logs that it took
/// it over. The file is its owner's alone (0600) and names the command as
/// `ArgumentRedaction` shows it. Read-only commands (status, export, dry runs) never take it.
public final class RunLock {
    /// Who holds (or last held) the lock.
    public struct Holder: Sendable, Equatable, CustomStringConvertible {
        /// The holder's command line.
        public var command: String
        /// Its process id.
        public var pid: Int32
        /// Its host name.
        public var host: String
        /// When it took the lock (UTC, ISO 8601).
        public var since: String

        /// `rederive derive --all (pid 4242 on host-a, since 2026-11-23T03:00:00Z)`.
        public var description: String { "\(command) (pid \(pid) on \(host), since \(since))" }

        var fileText: String { "command=\(command)\npid=\(pid)\nhost=\(host)\nsince=\(since)\n" }

        init(command: String, pid: Int32, host: String, since: String) {
            (self.command, self.pid, self.host, self.since) = (command, pid, host, since)
        }

        init?(fileText: String) {
            var fields: [String: String] = [:]
            for line in fileText.split(separator: "\n") {
                guard let eq = line.firstIndex(of: "=") else { continue }
                fields[String(line[..<eq])] = String(line[line.index(after: eq)...])
            }
            guard let command = fields["command"], let pid = fields["pid"].flatMap(Int32.init) else { return nil }
            // A file an older version wrote may name a password: never shown again.
            self.init(
                command: ArgumentRedaction.scrubbed(command), pid: pid, host: fields["host"] ?? "?",
                since: fields["since"] ?? "?")
        }
    }

    /// The lock file.
    public let path: String
    private var fd: Int32

    /// The lock file of the store at `storePath`.
    public static func path(forStore storePath: String) -> String { storePath + ".lock" }

    /// Takes the lock of the store at `storePath` for `command`, waiting up to `wait`
    /// seconds while another run holds it (0: fail at once). Throws `.busy` naming the
    /// holder when it stays taken.
    ///
    /// Call it only once the store is known to be a rederive store or a new one
    /// (`RecordStores.check`): the lock file is created beside it. It is opened without following
    /// a link (a planted `STORE.lock` link never makes the holder's text overwrite another
    /// file) and must be a regular file.
    public static func acquire(
        store storePath: String, command: String, wait: Double = 0,
        log: Logger = Logger(label: "rederive.lock")
    ) throws(RederiveError) -> RunLock {
        let path = path(forStore: storePath)
        let dir = OutputFile.folder(of: storePath)
        if !dir.isEmpty, !FileManager.default.fileExists(atPath: dir) {
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        // Readable by its owner only: it names the holder's command line while the run lasts.
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard fd >= 0 else {
            let code = errno
            let reason = code == ELOOP ? "it is a symbolic link" : String(cString: strerror(code))
            throw .io("\(path): cannot open the run lock: \(reason); nothing was done")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .io("\(path): the run lock is not a regular file; nothing was done")
        }
        // One an older version left readable by all (0644) is narrowed when it is ours.
        if info.st_uid == geteuid(), info.st_mode & 0o077 != 0 { _ = fchmod(fd, info.st_mode & 0o700) }
        let deadline = Stopwatch()
        var waited = false
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let error = errno
            guard error == EWOULDBLOCK || error == EINTR else {
                close(fd)
                throw .io("\(path): cannot take the run lock: \(String(cString: strerror(error)))")
            }
            let holder = Holder(fileText: readText(fd))
            if deadline.seconds >= wait {
                close(fd)
                let who = holder.map { "\($0)" } ?? "another process"
                throw .busy(
                    "\(storePath): another writing run holds the store: \(who)"
                        + (wait > 0 ? "; waited \(secondsText(wait))" : "; --wait SECONDS waits for it"))
            }
            if !waited {
                log.notice("waiting for the run lock held by \(holder.map { "\($0)" } ?? "another process")")
                waited = true
            }
            usleep(100_000)
        }
        // Ours now. A holder still named in the file is a run that ended without releasing
        // it (killed, crashed): the kernel freed its lock; say that we take over.
        if let previous = Holder(fileText: readText(fd)) {
            log.notice("took over the run lock left by \(previous): that process is gone")
        }
        let me = Holder(
            command: ArgumentRedaction.scrubbed(command), pid: getpid(), host: ProcessInfo.processInfo.hostName,
            since: ReferenceDate.iso8601(secondsSinceReferenceDate: Date().timeIntervalSinceReferenceDate))
        writeText(fd, me.fileText)
        return RunLock(path: path, fd: fd)
    }

    /// The holder named in the lock file of `storePath`, if the lock is held now.
    public static func holder(ofStore storePath: String) -> Holder? {
        let fd = open(path(forStore: storePath), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            return nil
        }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        return Holder(fileText: readText(fd))
    }

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// Releases the lock (a clean end leaves the file empty: no holder).
    public func release() {
        guard fd >= 0 else { return }
        _ = ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    deinit { release() }

    private static func readText(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = pread(fd, &buffer, buffer.count, 0)
        return n > 0 ? String(decoding: buffer[..<n], as: UTF8.self) : ""
    }

    private static func writeText(_ fd: Int32, _ text: String) {
        _ = ftruncate(fd, 0)
        let bytes = Array(text.utf8)
        _ = pwrite(fd, bytes, bytes.count, 0)
        fsync(fd)
    }

    private static func secondsText(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}
