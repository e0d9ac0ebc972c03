import CRoomJSON

/// Bytes a parser that reads past their end in blocks (simdjson) can take in place: a span of a
/// buffer with readable bytes after it. A store reads a batch's raw rooms into a few shared
/// buffers (`PaddedBytes.Page`): one allocation for hundreds of rooms instead of one a room,
/// which the reading thread made and another thread freed (glibc keeps no per-thread cache
/// for blocks of a room's size, so each cost both threads a trip through the arena's lists).
package struct PaddedBytes: Sendable {
    /// The buffer the span lies in (other rooms' spans may share it).
    private let storage: [UInt8]
    /// Where the span starts in `storage`.
    private let start: Int
    /// How many bytes the span holds.
    package let count: Int

    /// `bytes` on their own: padded as far as their spare capacity goes (a parser copies
    /// them when it is less than `RJ_PADDING`).
    package init(_ bytes: [UInt8] = []) {
        (storage, start, count) = (bytes, 0, bytes.count)
    }

    /// The span `start ..< start + count` of `storage`.
    init(storage: [UInt8], start: Int, count: Int) {
        precondition(start >= 0 && count >= 0 && start + count <= storage.count, "a span outside its buffer")
        (self.storage, self.start, self.count) = (storage, start, count)
    }

    /// The bytes as an array of their own (a copy when the buffer is shared).
    package var array: [UInt8] {
        start == 0 && count == storage.count ? storage : Array(storage[start..<start + count])
    }

    /// `body` over the bytes and how many bytes are readable from their start: `count` and the
    /// padding after them (the rest of their buffer's capacity).
    package func withUnsafeBytes<T>(
        _ body: (_ bytes: UnsafeBufferPointer<UInt8>, _ readable: Int) throws -> T
    ) rethrows -> T {
        try storage.withUnsafeBufferPointer { whole in
            try body(UnsafeBufferPointer(rebasing: whole[start..<start + count]), storage.capacity - start)
        }
    }
}

extension PaddedBytes: Equatable {
    /// Same bytes, wherever they lie.
    package static func == (a: PaddedBytes, b: PaddedBytes) -> Bool {
        a.count == b.count && a.withUnsafeBytes { x, _ in b.withUnsafeBytes { y, _ in x.elementsEqual(y) } }
    }
}
