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
    private var failure: String?
    /// Lines written.
    private(set) var records = 0

    /// Opens a new temporary list in `directory`.
    init(directory: String) {
        let name = "rederive-changes-\(getpid())-\(UUID().uuidString).jsonl.zst"
        location = (directory as NSString).appendingPathComponent(name)
        do {
            writer = try ZstdWriter(path: location)
        } catch {
            failure = String(describing: error)
        }
    }

    deinit {
        if isTemporary { unlink(location) }
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
            do { try writer.finish() } catch { failure = String(describing: error) }
        }
    }

    /// Puts the finished list at `path` atomically: renamed there the first time (copied
    /// through a temporary name when on another file system, and on later calls).
    func place(at path: String) throws(RederiveError) {
        finish()
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw .io("the change list: \(failure)") }
        if isTemporary, rename(location, path) == 0 {
            (location, isTemporary) = (path, false)
            return
        }
        let temp = path + ".tmp-\(getpid())"
        unlink(temp)
        do {
            try FileManager.default.copyItem(atPath: location, toPath: temp)
        } catch {
            unlink(temp)
            throw .io("\(path): cannot write: \(error.localizedDescription)")
        }
        if rename(temp, path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw .io("\(path): cannot rename into place: \(reason)")
        }
    }
}
