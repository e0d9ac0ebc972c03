import CZstd
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a zstd-compressed (or, for a name not ending in `.zst`, plain) file through a
/// temporary name, renamed into place by `finish()`, so a reader never sees half a file
/// (a FIFO or device is written into directly: see `OutputFile`).
public final class ZstdWriter {
    /// The final path.
    public let path: String
    private let handle: OutputFile.Handle
    private var file: UnsafeMutablePointer<FILE>?
    private var cstream: OpaquePointer?
    private var output: [UInt8]
    private var buffer: [UInt8] = []
    private let bufferLimit = 1 << 20
    /// Bytes appended since the current zstd frame began (or since the file began).
    private var frameHasData = false
    /// Whether any frame has been ended by `endFrame()`.
    private var endedAFrame = false
    /// Bytes written to the file so far (compressed bytes for `.zst`). After `endFrame()`
    /// this is the offset where the next frame starts.
    public private(set) var fileBytesWritten: Int64 = 0

    /// Opens `path` for writing; `level` is the zstd level. Plain text when `path` does not
    /// end in `.zst`. The file is opened as `OutputFile` says: through an exclusive temporary
    /// name in its folder (created on demand), or straight into a FIFO or device.
    public init(path: String, level: Int32 = 3) throws(ZstdWriterError) {
        self.path = path
        let handle: OutputFile.Handle
        do { handle = try OutputFile.open(path) } catch { throw ZstdWriterError(message: error.description) }
        let fd = handle.detachDescriptor()
        guard let file = fdopen(fd, "wb") else {
            let code = errno
            close(fd)
            handle.abandon()
            throw ZstdWriterError(message: "\(path): cannot create: \(String(cString: strerror(code)))")
        }
        self.handle = handle
        self.file = file
        self.output = [UInt8](repeating: 0, count: ZSTD_CStreamOutSize())
        if path.hasSuffix(".zst") {
            cstream = ZSTD_createCStream()
            ZSTD_CCtx_setParameter(cstream, ZSTD_c_compressionLevel, level)
        }
        buffer.reserveCapacity(bufferLimit + (64 << 10))
    }

    deinit {
        if let cstream { ZSTD_freeCStream(cstream) }
        if let file { fclose(file) }
        handle.abandon()
    }

    /// Appends bytes.
    public func write(_ bytes: some Sequence<UInt8>) throws(ZstdWriterError) {
        frameHasData = true
        buffer.append(contentsOf: bytes)
        if buffer.count >= bufferLimit { try flush(end: false) }
    }

    /// Appends a string's UTF-8.
    public func write(_ string: String) throws(ZstdWriterError) {
        try write(string.utf8)
    }

    /// Ends the current zstd frame (when it holds any data); what is written next starts a
    /// new frame in the same file, as `cat a.zst b.zst` would make. No-op for plain files.
    public func endFrame() throws(ZstdWriterError) {
        guard cstream != nil, frameHasData else { return }
        try flush(end: true)
        frameHasData = false
        endedAFrame = true
    }

    /// Ends the frame, closes and renames the file into place.
    public func finish() throws(ZstdWriterError) {
        // After `endFrame()` with nothing written since, do not append an empty frame.
        if frameHasData || !endedAFrame || cstream == nil { try flush(end: true) }
        guard let file else { return }
        self.file = nil
        // fsync only a file about to be renamed into place (a FIFO or device refuses it).
        let synced = fflush(file) == 0 && (handle.temporaryPath == nil || fsync(fileno(file)) == 0)
        let code = errno
        if fclose(file) != 0 || !synced {
            let reason = String(cString: strerror(synced ? errno : code))
            handle.abandon()
            throw ZstdWriterError(message: "\(path): write failed: \(reason)")
        }
        do { try handle.commit(closed: true) } catch { throw ZstdWriterError(message: error.description) }
    }

    private func flush(end: Bool) throws(ZstdWriterError) {
        guard let file else { return }
        guard let cstream else {
            if !buffer.isEmpty, fwrite(buffer, 1, buffer.count, file) != buffer.count {
                let code = errno
                throw ZstdWriterError(message: "\(path): write failed: \(String(cString: strerror(code)))")
            }
            fileBytesWritten += Int64(buffer.count)
            buffer.removeAll(keepingCapacity: true)
            return
        }
        var failure: String?
        buffer.withUnsafeBytes { src in
            var inBuf = ZSTD_inBuffer(src: src.baseAddress, size: src.count, pos: 0)
            let mode = end ? ZSTD_e_end : ZSTD_e_continue
            while true {
                var remaining = 0
                let written: Int = output.withUnsafeMutableBytes { dst in
                    var outBuf = ZSTD_outBuffer(dst: dst.baseAddress, size: dst.count, pos: 0)
                    remaining = ZSTD_compressStream2(cstream, &outBuf, &inBuf, mode)
                    return outBuf.pos
                }
                if ZSTD_isError(remaining) != 0 {
                    failure = String(cString: ZSTD_getErrorName(remaining))
                    return
                }
                if written > 0, fwrite(output, 1, written, file) != written {
                    let code = errno
                    failure = String(cString: strerror(code))
                    return
                }
                fileBytesWritten += Int64(written)
                let done = end ? remaining == 0 : inBuf.pos == inBuf.size
                if done { return }
            }
        }
        buffer.removeAll(keepingCapacity: true)
        if let failure { throw ZstdWriterError(message: "\(path): write failed: \(failure)") }
    }
}

/// A failure to write an output file.
public struct ZstdWriterError: Error, Sendable, CustomStringConvertible {
    /// What happened, naming the file.
    public var message: String
    /// The message.
    public var description: String { message }
}
