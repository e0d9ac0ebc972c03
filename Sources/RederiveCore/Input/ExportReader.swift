import CRoomJSON
import CZstd

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams the lines of one export file (`*.jsonl` or multi-frame `*.jsonl.zst`) in
/// bounded memory: only the buffers its lines lie in are held (`LineBuffer`: a line is a span of
/// the buffer it was decoded into, not a copy).
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
    // Decoded bytes are `buffer[0 ..< dataEnd]`; the line being read starts at `lineStart`, and
    // `lineStart ..< scanPos` holds no "\n". Lines go out as spans of `buffer`, so bytes before
    // `dataEnd` are never written again while a line holds it.
    private var buffer: LineBuffer
    private var lineStart = 0
    private var scanPos = 0
    private var dataEnd = 0
    private var inputEnded = false
    private var skippingOversized = false
    private var lineNumber = 0
    private var finished = false
    private let hashing: Hashing
    private var hasher: SHA256?

    /// Decoded bytes a buffer holds (its padding besides), unless a longer line needs more.
    private static let bufferBytes = 1 << 20
    /// Refill into a buffer only while this much of it is free; otherwise move on to the next.
    private static let minimumFill = 128 << 10
    private static let padding = Int(RJ_PADDING)
    /// Buffers of the usual size kept for reuse once no line holds them (`spareBuffer()`); about
    /// two batches' worth, the most that are in flight at once.
    private static let spareLimit = 40
    private var spares: [LineBuffer] = []
    /// The length of the last line longer than a usual buffer (`makeRoom()`).
    private var lastLongLine = 0

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
        self.buffer = LineBuffer(capacity: Self.bufferBytes + Self.padding)
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
            if scanPos < dataEnd, let nl = memchr(buffer.base + scanPos, 0x0A, dataEnd - scanPos) {
                let end = UnsafeMutablePointer(mutating: nl.assumingMemoryBound(to: UInt8.self)) - buffer.base
                // Decode past the line first when few bytes follow it: they are its padding,
                // read in place only once written.
                if end + 1 + Self.padding > dataEnd, !inputEnded {
                    scanPos = end
                    if !refill() { inputEnded = true }
                    continue
                }
                let start = lineStart
                (lineStart, scanPos) = (end + 1, end + 1)
                if let line = takeLine(start..<end) { return line }
                continue
            }
            scanPos = dataEnd
            // A line longer than the limit is dropped as it is read: only its number is kept.
            if skippingOversized || dataEnd - lineStart > maxLineBytes {
                skippingOversized = true
                lineStart = dataEnd
            }
            if inputEnded || finished || !refill() {
                inputEnded = true
                finished = true
                finishHash()
                closeFile()
                // A last line without "\n" is a record in a clean file; after a fault it
                // is a fragment and belongs to the fault.
                let start = lineStart
                lineStart = dataEnd
                if fault == nil, dataEnd > start || skippingOversized { return takeLine(start..<dataEnd) }
                skippingOversized = false
                return nil
            }
        }
    }

    /// Up to `maxLines` lines or about `maxBytes` bytes, whichever comes first.
    public func nextLines(maxLines: Int, maxBytes: Int) -> [ExportLine] {
        var lines: [ExportLine] = []
        var bytes = 0
        while lines.count < maxLines, bytes < maxBytes, let line = nextLine() {
            bytes += line.byteCount
            lines.append(line)
        }
        return lines
    }

    // The line `buffer[range]`; nil for a blank line (skipped).
    private func takeLine(_ range: Range<Int>) -> ExportLine? {
        lineNumber += 1
        if skippingOversized || range.count > maxLineBytes {
            skippingOversized = false
            return ExportLine(number: lineNumber, bytes: [], oversized: true)
        }
        if range.count > Self.bufferBytes { lastLongLine = range.count }
        let base = buffer.base
        var (start, end) = (range.lowerBound, range.upperBound)
        if end > start, base[end - 1] == 0x0D { end -= 1 }
        // A UTF-8 byte-order mark at the very start of the file (some Windows tools write
        // one) is not part of the first record; anywhere else it stays and is invalid JSON.
        if lineNumber == 1, end - start >= 3, base[start] == 0xEF, base[start + 1] == 0xBB, base[start + 2] == 0xBF {
            start += 3
        }
        if (start..<end).allSatisfy({ base[$0] == 0x20 || base[$0] == 0x09 }) { return nil }
        // Its padding: the bytes decoded after it, or the buffer's whole rest once nothing more
        // is decoded into it.
        let readable = (inputEnded ? buffer.capacity : dataEnd) - start
        return ExportLine(number: lineNumber, buffer: buffer, start: start, count: end - start, readable: readable)
    }

    // Room after `dataEnd` for at least `minimumFill` bytes: the line being read moves to the
    // front of this buffer when no line holds it any more, else to a new one (half as long again
    // as the line when it is long, within the line limit: a record of tens of MB and the lines
    // after it share that buffer, so doubling it cost 30 MB of peak memory on 40 MB records).
    private func makeRoom() {
        let dataCapacity = buffer.capacity - Self.padding
        let partial = dataEnd - lineStart
        // After a long line, the lines that follow it go to a buffer of the usual size: the long
        // one's pages are given back with the long line.
        let leaveLong = dataCapacity > Self.bufferBytes && partial < Self.bufferBytes / 2
        guard dataCapacity - dataEnd < Self.minimumFill || leaveLong else { return }
        // A line outgrowing the usual buffer starts at the last long line's length: long records
        // come in runs, and each growth holds the old buffer and the new one at once.
        var needed = max(Self.bufferBytes, partial + partial / 2)
        if needed > Self.bufferBytes { needed = max(needed, lastLongLine + Self.bufferBytes) }
        needed = min(needed, maxLineBytes + Self.bufferBytes)
        if !leaveLong, isKnownUniquelyReferenced(&buffer), needed <= dataCapacity {
            buffer.base.update(from: buffer.base + lineStart, count: partial)
        } else {
            let next = needed == Self.bufferBytes ? spareBuffer() : LineBuffer(capacity: needed + Self.padding)
            next.base.update(from: buffer.base + lineStart, count: partial)
            if buffer.capacity == Self.bufferBytes + Self.padding {
                spares.append(buffer)
                if spares.count > Self.spareLimit { spares.removeFirst() }
            }
            buffer = next
        }
        scanPos -= lineStart
        (lineStart, dataEnd) = (0, partial)
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

    // A buffer of the usual size whose lines are all gone, else a new one. Reusing them keeps
    // the decoded bytes off fresh pages: malloc gave 1 MB blocks back to the kernel now and then
    // (up to three times the import's page faults).
    private func spareBuffer() -> LineBuffer {
        for i in spares.indices where isKnownUniquelyReferenced(&spares[i]) { return spares.remove(at: i) }
        return LineBuffer(capacity: Self.bufferBytes + Self.padding)
    }

    // Decodes more bytes after `dataEnd`; false at the end or at a fault.
    private func refill() -> Bool {
        makeRoom()
        switch kind {
        case .plain: return refillPlain()
        case .zstd: return refillZstd()
        }
    }

    private func readInput() -> Int? {
        input.withUnsafeMutableBytes { read(into: $0) }
    }

    // Reads from the file into `target`; nil after a read error, 0 at its end.
    private func read(into target: UnsafeMutableRawBufferPointer) -> Int? {
        guard let file else { return 0 }
        let n = fread(target.baseAddress, 1, target.count, file)
        if n == 0, ferror(file) != 0 {
            if fault == nil {
                fault = ExportReadError(
                    code: .fileUnreadable, path: path, byteOffset: fileBytes,
                    message: "read failed: \(String(cString: strerror(errno)))")
            }
            return nil
        }
        if hasher != nil { hasher?.update(UnsafeRawBufferPointer(rebasing: target[..<n])) }
        return n
    }

    private func refillPlain() -> Bool {
        let free = UnsafeMutableRawBufferPointer(
            start: buffer.base + dataEnd, count: buffer.capacity - Self.padding - dataEnd)
        guard let n = read(into: free), n > 0 else { return false }
        dataEnd += n
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
                var inBuf = ZSTD_inBuffer(src: src.baseAddress, size: inputSize, pos: inputPos)
                var outBuf = ZSTD_outBuffer(
                    dst: buffer.base + dataEnd, size: buffer.capacity - Self.padding - dataEnd, pos: 0)
                let r = ZSTD_decompressStream(dstream, &outBuf, &inBuf)
                inputPos = inBuf.pos
                produced = outBuf.pos
                return r
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
                dataEnd += produced
                decodedBytes += Int64(produced)
                return true
            }
        }
    }
}
