import Foundation

/// A batch of lines from one export file, or the end of that file.
public struct ExportBatch: Sendable {
    /// The file's path as given.
    public var file: String
    /// The lines of this batch, in file order.
    public var lines: [ExportLine]
    /// True on the last batch of the file.
    public var endOfFile: Bool
    /// The fault that ended the file early, if any (only with `endOfFile`).
    public var fault: ExportReadError?
    /// Decoded bytes this batch accounts for.
    public var decodedBytes: Int64
    /// File (compressed) bytes this batch accounts for.
    public var fileBytes: Int64
    /// With `endOfFile`, when the source hashes: the SHA-256 of the file's bytes as they were
    /// read (`ExportReader.contentHash`), the file's identity for what was read from it.
    public var contentHash: String? = nil
}

/// Reads export files one after another on a background thread, a few batches ahead of
/// the workers, so decompression overlaps parsing and deriving. Memory stays bounded by
/// `prefetch` batches of at most `maxBytes` each.
public final class ExportBatchSource: Sendable {
    private let prefetcher: Prefetcher<ExportBatch>
    private let lines: BatchSizeHint

    /// Starts reading `files` in order; each file's last batch carries the hash of the bytes read
    /// when `hashing` asks for it (`ExportBatch.contentHash`). With `sized` (`--batch-seconds`)
    /// the batches after the first are read only once `resize` was called (the first was sized).
    public init(
        files: [String], maxLines: Int = 512, maxBytes: Int = 16 << 20, prefetch: Int = 2,
        hashing: ExportReader.Hashing = .never, sized: Bool = false
    ) {
        let lines = BatchSizeHint(maxLines)
        self.lines = lines
        prefetcher = Prefetcher(capacity: prefetch, stackSize: 1 << 20) { emit, waitForRoom in
            // Sized, the second batch is read only once the first was sized: read ahead while the
            // first was worked on, it was `maxLines` too (as a derive's was), far off the target,
            // slow itself and its commit slowing the batches beside it.
            Self.produce(
                files: files, maxLines: lines, maxBytes: maxBytes, hashing: hashing,
                untilSized: { !sized || lines.waitUntilSet(cancelled: { !waitForRoom() }) }, emit: emit)
        }
    }

    /// The next batch, or nil when every file has been read.
    public func next() -> ExportBatch? { prefetcher.next() }

    /// Reads the batches not yet started at most `maxLines` lines each (`--batch-seconds`).
    func resize(maxLines: Int) { lines.set(maxLines) }

    /// Stops reading early; pending batches are dropped.
    public func cancel() { prefetcher.cancel() }

    private static func produce(
        files: [String], maxLines: BatchSizeHint, maxBytes: Int, hashing: ExportReader.Hashing,
        untilSized: () -> Bool, emit: (ExportBatch) -> Bool
    ) {
        var emitted = false  // a batch was handed on: the lines after it wait for `untilSized` (false: stop)
        for file in files {
            let reader: ExportReader
            do {
                reader = try ExportReader(path: file, hashing: hashing)
            } catch {
                if !emit(
                    ExportBatch(file: file, lines: [], endOfFile: true, fault: error, decodedBytes: 0, fileBytes: 0))
                {
                    return
                }
                continue
            }
            var decoded: Int64 = 0, consumed: Int64 = 0
            while true {
                if emitted, !untilSized() { return }
                let lines = reader.nextLines(maxLines: maxLines.value, maxBytes: maxBytes)
                let batch = ExportBatch(
                    file: file, lines: lines, endOfFile: lines.isEmpty, fault: lines.isEmpty ? reader.fault : nil,
                    decodedBytes: reader.decodedBytes - decoded, fileBytes: reader.fileBytes - consumed,
                    contentHash: lines.isEmpty ? reader.contentHash : nil)
                decoded = reader.decodedBytes
                consumed = reader.fileBytes
                emitted = true
                if !emit(batch) { return }
                if lines.isEmpty { break }
            }
        }
    }
}
