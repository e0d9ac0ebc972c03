import RederiveCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
/// Writes synthetic room-scan exports (RederiveCore.docc/ExportFormat.md) built from real sample rooms, for
/// tests, fixtures and benchmarks.
///
/// Each record takes one sample room, moves it by a random rigid motion (rotation about y
/// plus a translation in x/z, left-multiplied into every element `transform` and applied to
/// section centres; floor `polygonCorners` are local and unchanged), shuffles the walls,
/// optionally drops `floors`/`sections`/`story`/`version` (older app versions), optionally
/// resizes the opaque `coreModel`, and emits it as a format v1, v2 or v3 record with a
/// stale summary (floor area 0, the old bug). A chosen fraction of lines is corrupt, cycling
/// over `CorruptKind`.
///
/// Output is a pure function of the sample rooms and the options: no clock, no system
/// randomness (a `SplitMix64` per record), keys written sorted.
///
/// ```swift
/// let rooms = try SampleRoom.load(directory: "Fixtures/rooms")
/// var options = CorpusGenerator.Options(records: 1000, seed: 42)
/// options.corruptFraction = 0.01
/// let stats = try CorpusGenerator(rooms: rooms, options: options).write(to: "out.jsonl.zst")
/// ```
public struct CorpusGenerator: Sendable {
    /// Relative weights of record format versions 1, 2 and 3 among the good records.
    public struct FormatMix: Sendable, Equatable {
        /// Weight of v1 records.
        public var v1: Double
        /// Weight of v2 records.
        public var v2: Double
        /// Weight of v3 records.
        public var v3: Double

        /// A mix with the given weights (normalised when used).
        public init(v1: Double, v2: Double, v3: Double) {
            self.v1 = v1
            self.v2 = v2
            self.v3 = v3
        }

        /// Equal parts of each version.
        public static let even = FormatMix(v1: 1, v2: 1, v3: 1)

        /// Equal parts of the listed versions (each 1, 2 or 3), e.g. `[1, 3]`.
        public init(versions: [Int]) throws {
            var mix = FormatMix(v1: 0, v2: 0, v3: 0)
            for v in versions {
                switch v {
                case 1: mix.v1 = 1
                case 2: mix.v2 = 1
                case 3: mix.v3 = 1
                default: throw CorpusGeneratorError(message: "unknown format version \(v) (known: 1, 2, 3)")
                }
            }
            guard !versions.isEmpty else { throw CorpusGeneratorError(message: "no format version given") }
            self = mix
        }
    }

    /// What to generate.
    public struct Options: Sendable {
        /// Number of lines (good and corrupt records together).
        public var records: Int
        /// Seed of every random choice; same seed and options give identical bytes.
        public var seed: UInt64
        /// Version mix of the good records; counts are exact (largest remainder).
        public var formatMix: FormatMix = .even
        /// Fraction of the good records without `floors`, `sections`, `story`, `version`.
        public var floorlessFraction: Double = 0
        /// Fraction of lines that are corrupt (rounded to a whole count).
        public var corruptFraction: Double = 0
        /// Kinds of corruption to cycle over, in line order.
        public var corruptKinds: [CorruptKind] = CorruptKind.allCases
        /// `nil` keeps each sample's real `coreModel`; otherwise it is replaced by about this
        /// many bytes of random (per record, deterministic) base64 text.
        public var coreModelBytes: Int?
        /// For `.zst` output: end the zstd frame after every this many lines, making a
        /// multi-frame file. `nil`: one frame.
        public var framesEvery: Int?
        /// zstd compression level.
        public var zstdLevel: Int32 = 3
        /// For `.zst` output: cut the finished file in the middle of its last frame (a
        /// truncated-file fixture). Records of earlier frames stay readable.
        public var truncateLastFrame = false
        /// Keep a `LineInfo` per line in `Stats.lines` (costs memory on huge runs).
        public var collectLines = true

        /// Options for `records` lines from `seed`; everything else at its default
        /// (even v1/v2/v3 mix, no floorless or corrupt records, real coreModel, one frame).
        public init(records: Int, seed: UInt64) {
            self.records = records
            self.seed = seed
        }
    }

    /// What one generated line is.
    public struct LineInfo: Sendable, Equatable {
        /// 1-based line number.
        public var line: Int
        /// The record format version it is shaped as (`formatVersion`, 1 when absent); nil
        /// for a line that is not an object.
        public var formatVersion: Int?
        /// Why it is corrupt; nil for a good record.
        public var corruptKind: CorruptKind?
        /// Whether its room has no `floors` (older app version).
        public var floorless: Bool
        /// Its `id` (v2/v3), as written; nil for v1 and for records without one.
        public var id: String?
        /// The sample room it was built from.
        public var sampleRoom: String
    }

    /// What was written.
    public struct Stats: Sendable, Equatable {
        /// Lines written.
        public var records = 0
        /// Good (not corrupt) records.
        public var goodRecords = 0
        /// Good records per format version.
        public var goodByVersion: [Int: Int] = [:]
        /// Good records whose room has no floors.
        public var floorless = 0
        /// Corrupt lines per kind.
        public var corruptByKind: [CorruptKind: Int] = [:]
        /// Total corrupt lines.
        public var corrupt: Int { corruptByKind.values.reduce(0, +) }
        /// Decompressed bytes written (all lines with their `\n`).
        public var uncompressedBytes: Int64 = 0
        /// Bytes in the file (compressed size for `.zst`), after any truncation.
        public var fileBytes: Int64 = 0
        /// zstd frames written (0 for plain files).
        public var frames = 0
        /// Where the file was cut when `truncateLastFrame` was set.
        public var truncatedAtByte: Int64?
        /// One entry per line when `Options.collectLines` is set.
        public var lines: [LineInfo] = []
    }

    /// The sample rooms records are built from.
    public let rooms: [SampleRoom]
    /// The options.
    public let options: Options

    /// Checks the options; throws `CorpusGeneratorError` naming the bad one.
    public init(rooms: [SampleRoom], options: Options) throws {
        guard !rooms.isEmpty else { throw CorpusGeneratorError(message: "no sample rooms") }
        guard options.records >= 0 else { throw CorpusGeneratorError(message: "records must be >= 0") }
        for (name, f) in [
            ("corrupt fraction", options.corruptFraction), ("floorless fraction", options.floorlessFraction),
        ] {
            guard f.isFinite, (0...1).contains(f) else {
                throw CorpusGeneratorError(message: "\(name) must be between 0 and 1, got \(f)")
            }
        }
        let mix = options.formatMix
        guard [mix.v1, mix.v2, mix.v3].allSatisfy({ $0.isFinite && $0 >= 0 }), mix.v1 + mix.v2 + mix.v3 > 0 else {
            throw CorpusGeneratorError(message: "format mix weights must be >= 0 with a positive sum")
        }
        if let n = options.coreModelBytes, n < 0 {
            throw CorpusGeneratorError(message: "core model bytes must be >= 0")
        }
        if let n = options.framesEvery, n < 1 {
            throw CorpusGeneratorError(message: "frames-every must be >= 1")
        }
        if options.corruptFraction > 0, options.corruptKinds.isEmpty {
            throw CorpusGeneratorError(message: "corrupt fraction > 0 needs at least one corrupt kind")
        }
        self.rooms = rooms
        self.options = options
    }

    /// Loads the sample rooms from `roomsDirectory` (see `SampleRoom.load(directory:)`).
    public init(roomsDirectory: String, options: Options) throws {
        try self.init(rooms: SampleRoom.load(directory: roomsDirectory), options: options)
    }

    // MARK: - Plan

    enum Slot: Equatable {
        case good(version: Int, floorless: Bool)
        case corrupt(CorruptKind)
    }

    /// Decides, for every line, whether it is good (which version, floorless or not) or
    /// corrupt (which kind). Counts are exact; positions are shuffled.
    func plan() -> [Slot] {
        let n = options.records
        var rng = SplitMix64(seed: options.seed, stream: 0xFFFF_FFFF_FFFF_FFFF)
        let corruptCount = min(n, Int((options.corruptFraction * Double(n)).rounded()))
        var positions = Array(0..<n)
        rng.shuffle(&positions)
        var isCorrupt = [Bool](repeating: false, count: n)
        for p in positions.prefix(corruptCount) { isCorrupt[p] = true }
        let goodPositions = (0..<n).filter { !isCorrupt[$0] }

        // Exact version counts by largest remainder.
        let weights = [options.formatMix.v1, options.formatMix.v2, options.formatMix.v3]
        let total = weights.reduce(0, +)
        let quotas = weights.map { $0 / total * Double(goodPositions.count) }
        var counts = quotas.map { Int($0.rounded(.down)) }
        let order = (0..<3).sorted { (quotas[$0] - Double(counts[$0]), -$0) > (quotas[$1] - Double(counts[$1]), -$1) }
        var missing = goodPositions.count - counts.reduce(0, +)
        for i in order where missing > 0 { counts[i] += 1; missing -= 1 }
        var versions: [Int] = []
        for (i, c) in counts.enumerated() { versions += Array(repeating: i + 1, count: c) }
        rng.shuffle(&versions)

        let floorlessCount = min(
            goodPositions.count, Int((options.floorlessFraction * Double(goodPositions.count)).rounded()))
        var floorlessOrder = goodPositions
        rng.shuffle(&floorlessOrder)
        var isFloorless = [Bool](repeating: false, count: n)
        for p in floorlessOrder.prefix(floorlessCount) { isFloorless[p] = true }

        var slots = [Slot](repeating: .corrupt(.notAnObject), count: n)
        for (p, v) in zip(goodPositions, versions) { slots[p] = .good(version: v, floorless: isFloorless[p]) }
        var k = 0
        for p in 0..<n where isCorrupt[p] {
            slots[p] = .corrupt(options.corruptKinds[k % options.corruptKinds.count])
            k += 1
        }

        // A duplicate id needs an earlier good v2/v3 record: move it after one if needed.
        func hasId(_ s: Slot) -> Bool {
            if case .good(let v, _) = s { return v >= 2 }
            return false
        }
        var seenId = false
        var p = 0
        while p < n {
            if hasId(slots[p]) {
                seenId = true
            } else if slots[p] == .corrupt(.duplicateId), !seenId {
                if let q = slots[(p + 1)...].firstIndex(where: hasId) {
                    slots.swapAt(p, q)
                    seenId = true
                } else {
                    // No record with an id to repeat: fall back to a cut-off line.
                    slots[p] = .corrupt(.truncatedJSON)
                }
            }
            p += 1
        }
        return slots
    }

    // MARK: - Write

    /// Writes the corpus to `path` (zstd when it ends in `.zst`, else plain), through a
    /// temporary name renamed into place. Returns what was written.
    public func write(to path: String) throws -> Stats {
        try write(to: path, progress: nil)
    }

    /// Like `write(to:)`, calling `progress(linesWritten, uncompressedBytes, fractionDone)`
    /// after every line (the callback decides how often to show anything).
    public func write(to path: String, progress: ((Int, Int64, Double) -> Void)?) throws -> Stats {
        if options.truncateLastFrame, !path.hasSuffix(".zst") {
            throw CorpusGeneratorError(message: "\(path): truncating the last frame needs a .zst output")
        }
        let compressed = path.hasSuffix(".zst")
        // Write failures surface as `ZstdWriterError` (its message names the file).
        let writer = try ZstdWriter(path: path, level: options.zstdLevel)
        let slots = plan()
        var stats = Stats()
        var earlierIds: [String] = []
        var duplicates = 0
        var line: [UInt8] = []
        line.reserveCapacity(1 << 20)
        var lastFrameStart: Int64 = 0
        var frames = 0
        do {
            for (index, slot) in slots.enumerated() {
                line.removeAll(keepingCapacity: true)
                var rng = SplitMix64(seed: options.seed, stream: UInt64(index))
                let base = makeBase(
                    rng: &rng,
                    floorless: {
                        if case .good(_, true) = slot { return true }; return false
                    }())
                var info = LineInfo(
                    line: index + 1, formatVersion: nil, corruptKind: nil,
                    floorless: base.floorless, id: nil, sampleRoom: base.sampleName)
                switch slot {
                case .good(let version, _):
                    let record = base.record(version: version)
                    record.write(to: &line)
                    info.formatVersion = version
                    if version >= 2 {
                        info.id = base.id
                        earlierIds.append(base.id)
                    }
                    stats.goodRecords += 1
                    stats.goodByVersion[version, default: 0] += 1
                    if base.floorless { stats.floorless += 1 }
                case .corrupt(let kind):
                    var duplicateOf: String?
                    if kind == .duplicateId {
                        let original = earlierIds[rng.next(below: earlierIds.count)]
                        duplicateOf = duplicates % 2 == 0 ? original : original.lowercased()
                        duplicates += 1
                    }
                    let (version, id) = base.writeCorrupt(kind, duplicateOf: duplicateOf, to: &line)
                    info.formatVersion = version
                    info.id = id
                    info.corruptKind = kind
                    stats.corruptByKind[kind, default: 0] += 1
                }
                line.append(0x0A)
                try writer.write(line)
                stats.records += 1
                stats.uncompressedBytes += Int64(line.count)
                if options.collectLines { stats.lines.append(info) }
                progress?(stats.records, stats.uncompressedBytes, Double(stats.records) / Double(slots.count))
                if compressed, let every = options.framesEvery, (index + 1) % every == 0, index + 1 < slots.count {
                    try writer.endFrame()
                    frames += 1
                    lastFrameStart = writer.fileBytesWritten
                }
            }
            try writer.finish()
            if compressed { frames += 1 }
            stats.fileBytes = writer.fileBytesWritten
        }
        stats.frames = frames
        if options.truncateLastFrame {
            let frameSize = stats.fileBytes - lastFrameStart
            let cut = lastFrameStart + max(1, frameSize / 2)
            if truncate(path, off_t(cut)) != 0 {
                throw CorpusGeneratorError(message: "\(path): cannot truncate: \(String(cString: strerror(errno)))")
            }
            stats.truncatedAtByte = cut
            stats.fileBytes = cut
        }
        return stats
    }
}
