import CRoomJSON
import CZstd

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams the lines of one export file (`*.jsonl` or multi-frame `*.jsonl.zst`) in
/// bounded memory: only the current chunk and the line being assembled are held.
///
/// A damaged or truncated zstd frame ends the file with `fault` set; the lines completed
/// before it are still returned.
public final class ExportReader {
    /// The path as given.
    public let path: String
    /// How the file is encoded.
    public let kind: ExportFileKind
    /// Longest line accepted; longer lines are skipped and flagged `oversized`.
    public let maxLineBytes: Int
    /// The fault that stopped reading, if any. Set once the reader returns no more lines.
    public private(set) var fault: ExportReadError?
    /// Decompressed bytes delivered so far.
    public private(set) var decodedBytes: Int64 = 0
    /// Compressed (file) bytes consumed so far.
    public private(set) var fileBytes: Int64 = 0
    /// The SHA-256 (hex) of the file's bytes as this reader read them through its one
    /// descriptor (see `Hashing`), set once it has returned its last line. Nil when not asked
    /// for, or when a read failed (no identity).
    public private(set) var contentHash: String?

    /// When a reader hashes the file (`contentHash`): a file's identity is the bytes it read.
    public enum Hashing: Sendable {
        /// Never.
        case never
        /// Every byte as it is read; after a fault, the rest of the file is read for the hash
        /// alone, so a fault is recorded under the whole file.
        case asRead
        /// Only a file that ends in a fault: read again from its start through the same
        /// descriptor, so a name replaced meanwhile changes nothing (SHA-256 costs about 4 ms
        /// of CPU per MB, which every file read would pay under `asRead`).
        case afterFault
    }

    private var file: UnsafeMutablePointer<FILE>?
    private var dstream: OpaquePointer?
    private var input: [UInt8]
    private var inputPos = 0
    private var inputSize = 0
    private var lastZstdResult = 0
    private var chunk: [UInt8]
    private var chunkPos = 0
    private var chunkSize = 0
    private var pending: [UInt8] = []
    private var skippingOversized = false
    private var lineNumber = 0
    private var finished = false
    private let hashing: Hashing
    private var hasher: SHA256?

    /// The default longest line: 48 MiB. Importing one record takes about 4.3 times its line
    /// in memory at its peak (the line, the parser's padded copy and DOM, the raw room split
    /// for the store, the batch written), on top of ~30 MB: a 63.5 MB record measured 303 MB
    /// resident (`import`), 227 MB (`summarize`). At 48 MiB one record stays well within a
    /// 300 MB process; 250 MB records (1.28 GB resident) are `line_too_long`.
    public static let defaultMaxLineBytes = 48 << 20

    /// Opens `path`. Throws `unsupported_file_type` for a name that is not an export and
    /// `file_unreadable` when it cannot be opened or is not a regular file (a FIFO, socket or
    /// device is refused from its `stat`, never opened: see `RegularFile`). `hashing`: when the
    /// file's bytes are hashed (`contentHash`).
    public init(
        path: String, maxLineBytes: Int = ExportReader.defaultMaxLineBytes, hashing: Hashing = .never
    ) throws(ExportReadError) {
        guard let kind = ExportFileKind(path: path) else {
            throw ExportReadError(
                code: .unsupportedFileType, path: path, byteOffset: 0,
                message: "not an export: expected a name ending in .jsonl or .jsonl.zst")
        }
        let file: UnsafeMutablePointer<FILE>
        switch RegularFile.openForReading(path: path) {
        case .success(let opened): file = opened
        case .failure(let error):
            throw ExportReadError(
                code: .fileUnreadable, path: path, byteOffset: 0, message: "cannot open: \(error.reason)")
        }
        self.path = path
        self.kind = kind
        self.maxLineBytes = maxLineBytes
        self.file = file
        self.input = [UInt8](repeating: 0, count: 1 << 20)
        self.chunk = [UInt8](repeating: 0, count: kind == .zstd ? (1 << 20) : 0)
        self.hashing = hashing
        self.hasher = hashing == .asRead ? SHA256() : nil
        if kind == .zstd {
            dstream = ZSTD_createDStream()
            ZSTD_initDStream(dstream)
        }
    }

    deinit {
        if let file { fclose(file) }
        if let dstream { ZSTD_freeDStream(dstream) }
    }

    /// Returns the next line, or nil at the end of the file (or at a fault: see `fault`).
    public func nextLine() -> ExportLine? {
        while true {
            if chunkPos == chunkSize {
                if finished || !refill() {
                    finished = true
                    finishHash()
                    closeFile()
                    // A last line without "\n" is a record in a clean file; after a fault it
                    // is a fragment and belongs to the fault.
                    if fault == nil, !pending.isEmpty || skippingOversized {
                        return takeLine(appending: nil)
                    }
                    pending = []
                    return nil
                }
                continue
            }
            let found: Int? = chunk.withUnsafeBufferPointer { buf -> Int? in
                let base = buf.baseAddress! + chunkPos
                guard let hit = memchr(base, 0x0A, chunkSize - chunkPos) else { return nil }
                return UnsafeRawPointer(hit) - UnsafeRawPointer(buf.baseAddress!)
            }
            if let nl = found {
                let start = chunkPos
                chunkPos = nl + 1
                if let line = takeLine(appending: start..<nl) { return line }
                continue
            }
            append(chunkPos..<chunkSize)
            chunkPos = chunkSize
        }
    }

    /// Up to `maxLines` lines or about `maxBytes` bytes, whichever comes first.
    public func nextLines(maxLines: Int, maxBytes: Int) -> [ExportLine] {
        var lines: [ExportLine] = []
        var bytes = 0
        while lines.count < maxLines, bytes < maxBytes, let line = nextLine() {
            bytes += line.bytes.count
            lines.append(line)
        }
        return lines
    }

    private func append(_ range: Range<Int>) {
        guard !skippingOversized else { return }
        if pending.count + range.count > maxLineBytes {
            skippingOversized = true
            pending = []
            return
        }
        pending.append(contentsOf: chunk[range])
    }

    // Completes the current line with chunk[range]; nil for a blank line (skipped).
    private func takeLine(appending range: Range<Int>?) -> ExportLine? {
        lineNumber += 1
        if skippingOversized {
            skippingOversized = false
            pending = []
            return ExportLine(number: lineNumber, bytes: [], oversized: true)
        }
        var bytes: [UInt8]
        if pending.isEmpty, let range {
            if range.count > maxLineBytes { return ExportLine(number: lineNumber, bytes: [], oversized: true) }
            bytes = []
            bytes.reserveCapacity(range.count + Int(RJ_PADDING))
            bytes.append(contentsOf: chunk[range])
        } else {
            if let range { append(range) }
            if skippingOversized {
                skippingOversized = false
                pending = []
                return ExportLine(number: lineNumber, bytes: [], oversized: true)
            }
            bytes = pending
            // Start the next line with room for one like this one: no regrowth copies.
            pending = []
            pending.reserveCapacity(bytes.count + Int(RJ_PADDING))
            bytes.reserveCapacity(bytes.count + Int(RJ_PADDING))
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        // A UTF-8 byte-order mark at the very start of the file (some Windows tools write
        // one) is not part of the first record; anywhere else it stays and is invalid JSON.
        if lineNumber == 1, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return nil }
        return ExportLine(number: lineNumber, bytes: bytes)
    }

    // The rest of the file (after a fault), or all of it again (`afterFault`), then the digest:
    // all through the descriptor the lines were read from.
    private func finishHash() {
        guard let file else { return }
        if hashing == .afterFault, fault != nil {
            rewind(file)
            hasher = SHA256()
        }
        guard hasher != nil else { return }
        while ferror(file) == 0, let n = readInput(), n > 0 {}
        if ferror(file) == 0, let hash = hasher.take() { contentHash = hash.hex }
        hasher = nil
    }

    private func closeFile() {
        if let file {
            fclose(file)
            self.file = nil
        }
    }

    // Produces the next chunk of decoded bytes; false at the end or at a fault.
    private func refill() -> Bool {
        switch kind {
        case .plain: return refillPlain()
        case .zstd: return refillZstd()
        }
    }

    private func readInput() -> Int? {
        guard let file else { return 0 }
        let n = input.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        if n == 0, ferror(file) != 0 {
            if fault == nil {
                fault = ExportReadError(
                    code: .fileUnreadable, path: path, byteOffset: fileBytes,
                    message: "read failed: \(String(cString: strerror(errno)))")
            }
            return nil
        }
        if hasher != nil { input.withUnsafeBytes { hasher?.update(UnsafeRawBufferPointer(rebasing: $0[..<n])) } }
        return n
    }

    private func refillPlain() -> Bool {
        guard let n = readInput(), n > 0 else { return false }
        swap(&input, &chunk)
        if input.count < (1 << 20) { input = [UInt8](repeating: 0, count: 1 << 20) }
        chunkPos = 0
        chunkSize = n
        fileBytes += Int64(n)
        decodedBytes += Int64(n)
        return true
    }

    private func refillZstd() -> Bool {
        while true {
            if inputPos == inputSize {
                guard let n = readInput() else { return false }
                if n == 0 {
                    if fileBytes == 0 {
                        // No frame at all: `zstd -t` fails such a file too ("unexpected end of file").
                        fault = ExportReadError(
                            code: .damagedFrame, path: path, byteOffset: 0,
                            message: "zstd frame is damaged: the file is empty (no zstd frame)")
                    } else if lastZstdResult != 0 {
                        fault = ExportReadError(
                            code: .truncatedFrame, path: path, byteOffset: fileBytes,
                            message: "zstd frame is truncated: the file ends inside a frame")
                    }
                    return false
                }
                inputPos = 0
                inputSize = n
            }
            let consumedBefore = inputPos
            var produced = 0
            let result: Int = input.withUnsafeBytes { src in
                chunk.withUnsafeMutableBytes { dst in
                    var inBuf = ZSTD_inBuffer(src: src.baseAddress, size: inputSize, pos: inputPos)
                    var outBuf = ZSTD_outBuffer(dst: dst.baseAddress, size: dst.count, pos: 0)
                    let r = ZSTD_decompressStream(dstream, &outBuf, &inBuf)
                    inputPos = inBuf.pos
                    produced = outBuf.pos
                    return r
                }
            }
            fileBytes += Int64(inputPos - consumedBefore)
            if ZSTD_isError(result) != 0 {
                let reason = String(cString: ZSTD_getErrorName(result))
                fault = ExportReadError(
                    code: .damagedFrame, path: path, byteOffset: fileBytes,
                    message: "zstd frame is damaged: \(reason)")
                return false
            }
            lastZstdResult = result
            if produced > 0 {
                chunkPos = 0
                chunkSize = produced
                decodedBytes += Int64(produced)
                return true
            }
        }
    }
}
