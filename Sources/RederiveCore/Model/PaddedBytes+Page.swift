import CRoomJSON

extension PaddedBytes {
    /// Collects byte spans into shared buffers, each span followed by at least `RJ_PADDING`
    /// readable bytes: `append` each span (a row's bytes, copied once), then `spans()` gives
    /// them back in order. A buffer holds `blockSize` bytes, or one span larger than that;
    /// what a batch's rooms hold is freed with the last of them.
    package struct Page {
        private let blockSize: Int
        private var blocks: [[UInt8]] = []
        private var placed: [(block: Int, start: Int, count: Int)] = []

        /// An empty page whose buffers hold `blockSize` bytes (1 MiB: about 150 stored rooms).
        package init(blockSize: Int = 1 << 20) {
            self.blockSize = blockSize
        }

        /// How many spans it holds.
        package var count: Int { placed.count }

        /// Appends a copy of `bytes` as the next span (nil: an empty one).
        package mutating func append(_ bytes: UnsafeBufferPointer<UInt8>?) {
            let length = bytes?.count ?? 0
            let needed = length + Int(RJ_PADDING)
            if blocks.isEmpty || blocks[blocks.count - 1].capacity - blocks[blocks.count - 1].count < needed {
                var block: [UInt8] = []
                block.reserveCapacity(max(blockSize, needed))
                blocks.append(block)
            }
            let last = blocks.count - 1
            placed.append((last, blocks[last].count, length))
            if let bytes { blocks[last].append(contentsOf: bytes) }
        }

        /// The spans, in the order they were appended.
        package func spans() -> [PaddedBytes] {
            placed.map { PaddedBytes(storage: blocks[$0.block], start: $0.start, count: $0.count) }
        }
    }
}
