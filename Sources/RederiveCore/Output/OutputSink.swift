#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command's result lines go: standard output, or a file (zstd when named `.zst`)
/// written through a temporary name and renamed into place when finished.
public final class OutputSink {
    private let file: ZstdWriter?
    private var buffer: [UInt8] = []

    /// Standard output when `path` is nil, else the file at `path`.
    public init(path: String?) throws(RederiveError) {
        if let path {
            do { file = try ZstdWriter(path: path) } catch { throw .io(error.message) }
        } else {
            file = nil
            buffer.reserveCapacity(1 << 20)
        }
    }

    /// Appends bytes.
    public func write(_ bytes: [UInt8]) throws(RederiveError) {
        if let file {
            do { try file.write(bytes) } catch { throw .io(error.message) }
        } else {
            buffer.append(contentsOf: bytes)
            if buffer.count >= 1 << 20 { try flushStandardOutput() }
        }
    }

    /// Flushes and closes (renames the file into place).
    public func finish() throws(RederiveError) {
        if let file {
            do { try file.finish() } catch { throw .io(error.message) }
        } else {
            try flushStandardOutput()
            if fflush(nil) != 0 {  // what print() left in stdio buffers
                let code = errno
                throw .io("standard output: write failed: \(String(cString: strerror(code)))")
            }
        }
    }

    // write(2) may write part of the buffer (a file reaching a full disk or its size limit)
    // and set no errno: loop until all is written or a call fails, and report that call's
    // errno, read at once (a stale one said "Inappropriate ioctl for device").
    private func flushStandardOutput() throws(RederiveError) {
        guard !buffer.isEmpty else { return }
        var offset = 0
        while offset < buffer.count {
            var code: Int32 = 0
            let written = buffer.withUnsafeBytes { raw -> Int in
                let n = Glibc.write(1, raw.baseAddress! + offset, raw.count - offset)
                code = errno
                return n
            }
            if written < 0, code == EINTR { continue }
            if written < 0 { throw .io("standard output: write failed: \(String(cString: strerror(code)))") }
            if written == 0 { throw .io("standard output: write failed: nothing written (is the device full?)") }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
