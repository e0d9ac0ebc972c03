import Foundation

/// The full list of changed records (`changes.jsonl.zst`), streamed by `ChangeCollector`
/// into a temporary file while the preview runs, so it never sits in memory, and moved
/// next to the other preview files by `ChangeReport.write(toDirectory:)`.
///
/// One JSON object per line: `{"id","room_name","source_file","format_version",
/// "stored_summary_version","changes":{key:{"before","after"[,"delta"]}}}`.
final class ChangeListFile: @unchecked Sendable {
    private let lock = NSLock()
    private var writer: ZstdWriter?
    /// Where the finished file is now (the temporary file until moved).
    private var location: String
    private var isTemporary = true
    // Whether the temporary list was written and renamed to `location` (ours to remove).
    private var finished = false
    private var failure: String?
    /// Lines written.
    private(set) var records = 0

    /// Opens a new temporary list in `directory`.
    init(directory: String) {
        let name = "rederive-changes-\(getpid())-\(UUID().uuidString).jsonl.zst"
        location = (directory as NSString).appendingPathComponent(name)
        // Registered before it exists (a unique name: no one else's file), so a signal that
        // arrives just after the file appears still removes it; once finished it is renamed
        // to `location`, which a signal removes too.
        TemporaryFiles.register(location)
        do {
            writer = try ZstdWriter(path: location)
        } catch {
            TemporaryFiles.forget(location)
            failure = String(describing: error)
        }
    }

    deinit {
        if isTemporary, finished { unlink(location) }
        if isTemporary { TemporaryFiles.forget(location) }
    }

    /// Appends one line (the newline is added); a write failure is kept for `place(at:)`.
    func append(_ line: String) {
        lock.withLock {
            guard let writer, failure == nil else { return }
            do {
                try writer.write(line)
                try writer.write("\n")
                records += 1
            } catch {
                failure = String(describing: error)
            }
        }
    }

    /// Ends the stream; later lines are dropped.
    func finish() {
        lock.withLock {
            guard let writer else { return }
            self.writer = nil
            do {
                try writer.finish()
                finished = true
            } catch {
                failure = String(describing: error)
            }
        }
    }

    /// Puts the finished list at `path` as `OutputFile` says: renamed there the first time
    /// (copied through an exclusive temporary name when on another file system, and on
    /// later calls; copied into a FIFO or device, which is never replaced).
    /// `shownAs`: the path as messages spell it (`path` goes through an `OutputFolder`).
    func place(at path: String, shownAs: String? = nil) throws(RederiveError) {
        finish()
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw .io("the change list: \(failure)") }
        if isTemporary, try OutputFile.target(of: path, what: "preview") == .replaceable, rename(location, path) == 0 {
            TemporaryFiles.forget(location)
            (location, isTemporary) = (path, false)
            return
        }
        let source = open(location, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw .io("\(location): cannot read: \(String(cString: strerror(errno)))") }
        defer { close(source) }
        let handle = try OutputFile.open(path, what: "preview", shownAs: shownAs)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n < 0 {
                handle.abandon()
                throw .io("\(location): cannot read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            try handle.write(buffer[..<n])
        }
        try handle.commit()
    }
}
