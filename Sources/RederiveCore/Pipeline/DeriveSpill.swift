import CRoomJSON
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a plan's check derived, kept for its apply so the write does not derive every record
/// a second time (`DeriveJob.apply`): each record's summary (its exact fields and JSON) with the
/// hash of the raw room it was derived from, written by the check batch by batch and read back
/// by the write for the keys of each of its batches.
///
/// The write uses a record's spilled result only while the record's raw room still has the
/// hash it had at the check (`StoredRoom.rawHash`; every import that changes a raw room sets a
/// new one): a derive of the same raw room by the same deriver is the same summary. Everything
/// else the write decides (newer, unchanged, what it replaces, the failure ledger) it decides
/// against the store as it reads it, exactly as without the spill; a record without a usable
/// result (changed since the check, failed, or past the limit) is derived again.
///
/// The file is created in the temporary folder (`TMPDIR`) and unlinked at once: only this
/// process's descriptor reaches it, and it is gone on every exit, a signal or `kill -9`
/// included. Each chunk (one check batch) carries a keyed checksum (XXH128 with a seed drawn
/// per process) verified when it is read back, before the batch that needs it writes: a chunk
/// changed on disk stops the apply there. Past `limit` bytes (or on a write error, such as a
/// full disk) the check stops spilling and the write derives the rest itself.
package final class DeriveSpill: Sendable {
    /// The default bound on the file: 512 MB, about half a million records.
    package static let defaultLimit: Int64 = 512 << 20

    /// One record's spilled result, in the chunk it was read back with.
    package struct Entry: Sendable {
        let chunk: [UInt8]
        /// Where its raw hash starts (after its length and key).
        let start: Int
        let end: Int

        /// The summary and JSON derived from `room`'s raw room when it still has the hash it had
        /// at the check; nil otherwise (derive it again).
        package func result(for room: StoredRoom) -> (RoomSummary, [UInt8])? {
            var offset = start
            guard let hashLength = LittleEndian.word(chunk, at: &offset), hashLength <= UInt64(end - offset) else {
                return nil
            }
            let hashEnd = offset + Int(hashLength)
            // No hash (a room read without it, `DeriveSelection.readsRawHash`) proves nothing.
            guard !room.rawHash.isEmpty, room.rawHash.utf8.elementsEqual(chunk[offset..<hashEnd]) else { return nil }
            offset = hashEnd
            guard let summary = RoomSummary.decodeBinary(chunk, at: &offset),
                let jsonLength = LittleEndian.word(chunk, at: &offset), jsonLength == UInt64(end - offset)
            else { return nil }
            return (summary, Array(chunk[offset..<end]))
        }
    }

    /// One check batch's entries in the file.
    private struct Chunk: Sendable {
        var first: Int64
        var last: Int64
        var offset: Int64
        var length: Int
        var check: [UInt64]
    }

    private struct State: Sendable {
        var chunks: [Chunk] = []
        var size: Int64 = 0
        /// Why spilling stopped (the limit, a write error), nil while it goes on.
        var stopped: String?
        var reused = 0
        var derivedAgain = 0
    }

    /// The bound on the file's size.
    package let limit: Int64
    /// The unlinked file's descriptor (tests change the file through it).
    package let fileDescriptor: Int32
    private let seed: UInt64
    private let state = Mutex(State())

    /// A spill in `directory` (default: the temporary folder), or nil when no file can be made
    /// there (the apply then derives as it writes).
    package init?(directory: String? = nil, limit: Int64 = defaultLimit) {
        let folder = directory ?? FileManager.default.temporaryDirectory.path
        var template = Array((folder.hasSuffix("/") ? folder : folder + "/").utf8CString.dropLast())
        template += Array("rederive-spill-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        // Unlinked at once: no path to it is left, on any exit.
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        (fileDescriptor, self.limit, seed) = (fd, limit, UInt64.random(in: 0...UInt64.max))
    }

    deinit { close(fileDescriptor) }

    /// The entry of one derived record (made on the workers): its length, key, raw hash, the
    /// summary's fields and its JSON.
    package static func entry(seq: Int64, rawHash: String, summary: RoomSummary, json: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(json.count + rawHash.utf8.count + 512)
        LittleEndian.append(0, to: &out)
        LittleEndian.append(UInt64(bitPattern: seq), to: &out)
        LittleEndian.append(UInt64(rawHash.utf8.count), to: &out)
        out.append(contentsOf: rawHash.utf8)
        summary.appendBinary(to: &out)
        LittleEndian.append(UInt64(json.count), to: &out)
        out.append(contentsOf: json)
        let length = UInt64(out.count).littleEndian
        withUnsafeBytes(of: length) { out.replaceSubrange(0..<8, with: $0) }
        return out
    }

    /// Adds one check batch's entries (keys `first` through `last`, in key order after the
    /// previous batch's), unless spilling stopped.
    package func append(_ entries: [[UInt8]], first: Int64, last: Int64) {
        guard !entries.isEmpty else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entries.reduce(0) { $0 + $1.count })
        for entry in entries { bytes.append(contentsOf: entry) }
        state.withLock { state in
            guard state.stopped == nil else { return }
            guard state.size + Int64(bytes.count) <= limit else {
                state.stopped = "it reached its limit of \(limit / (1 << 20)) MB"
                return
            }
            if let failure = write(bytes, at: state.size) {
                state.stopped = failure
                return
            }
            state.chunks.append(
                Chunk(first: first, last: last, offset: state.size, length: bytes.count, check: checksum(bytes)))
            state.size += Int64(bytes.count)
        }
    }

    /// The spilled entries of keys `first` through `last`, by key. A chunk whose checksum no
    /// longer matches (the file was changed) is an error: the batch writes nothing.
    package func entries(from first: Int64, through last: Int64) throws(RederiveError) -> [Int64: Entry] {
        let chunks = state.withLock { state in state.chunks.filter { $0.first <= last && $0.last >= first } }
        var found: [Int64: Entry] = [:]
        for chunk in chunks {
            let bytes = try read(chunk)
            var offset = 0
            while offset < bytes.count {
                var at = offset
                guard let length = LittleEndian.word(bytes, at: &at), length >= 16,
                    length <= UInt64(bytes.count - offset),
                    let seq = LittleEndian.word(bytes, at: &at)
                else { throw damaged(chunk) }
                let end = offset + Int(length)
                let key = Int64(bitPattern: seq)
                if key >= first && key <= last { found[key] = Entry(chunk: bytes, start: at, end: end) }
                offset = end
            }
        }
        return found
    }

    /// Counts a write batch's records taken from the spill and derived again.
    package func noteUse(reused: Int, derivedAgain: Int) {
        state.withLock {
            $0.reused += reused
            $0.derivedAgain += derivedAgain
        }
    }

    /// The write's records taken from the spill and derived again, the bytes spilled, and why
    /// spilling stopped (nil: it kept every result).
    package var usage: (reused: Int, derivedAgain: Int, bytes: Int64, stopped: String?) {
        state.withLock { ($0.reused, $0.derivedAgain, $0.size, $0.stopped) }
    }

    private func write(_ bytes: [UInt8], at offset: Int64) -> String? {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes {
                pwrite(fileDescriptor, $0.baseAddress! + done, $0.count - done, off_t(offset) + off_t(done))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return "writing it failed: \(String(cString: strerror(errno)))" }
            done += n
        }
        return nil
    }

    private func read(_ chunk: Chunk) throws(RederiveError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: chunk.length)
        var done = 0
        while done < chunk.length {
            let n = bytes.withUnsafeMutableBytes {
                pread(fileDescriptor, $0.baseAddress! + done, $0.count - done, off_t(chunk.offset) + off_t(done))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw damaged(chunk) }
            done += n
        }
        guard checksum(bytes) == chunk.check else { throw damaged(chunk) }
        return bytes
    }

    private func damaged(_ chunk: Chunk) -> RederiveError {
        .io(
            "the plan check's spilled results for record keys \(chunk.first)-\(chunk.last) were changed or lost "
                + "in the temporary file; nothing of this batch was written. Run the apply again: it checks the "
                + "plan again and finishes it")
    }

    private func checksum(_ bytes: [UInt8]) -> [UInt64] {
        var out: [UInt64] = [0, 0]
        bytes.withUnsafeBufferPointer { buffer in
            out.withUnsafeMutableBufferPointer { rj_hash128(buffer.baseAddress, buffer.count, seed, $0.baseAddress) }
        }
        return out
    }
}
