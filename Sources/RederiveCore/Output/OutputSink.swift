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
            fflush(nil)
        }
    }

    private func flushStandardOutput() throws(RederiveError) {
        guard !buffer.isEmpty else { return }
        let written = buffer.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
        if written != buffer.count {
            throw .io("standard output: write failed: \(String(cString: strerror(errno)))")
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
