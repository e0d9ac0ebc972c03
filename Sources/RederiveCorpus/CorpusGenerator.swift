import RederiveCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure to load sample rooms, validate generator options or write a corpus.
public struct CorpusGeneratorError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// Makes an error with `message`.
    public init(message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// The ways a generated record is deliberately broken, one per rule of "What makes a
/// record corrupt" in the export format (Sources/RederiveCore/RederiveCore.docc/ExportFormat.md).
/// The generator cycles over them in this order.
public enum CorruptKind: String, CaseIterable, Sendable, Codable, Comparable {
    /// A v3 record cut off halfway: not valid JSON.
    case truncatedJSON = "truncated_json"
    /// A v3 record whose `roomName` holds the bytes 0xC3 0x28 (not UTF-8).
    case invalidUTF8 = "invalid_utf8"
    /// Valid JSON that is not an object: `[1,2,3]`.
    case notAnObject = "not_an_object"
    /// A v3 record without `room`.
    case missingRoom = "missing_room"
    /// A v2 record without `id`.
    case missingId = "missing_id"
    /// A v3 record with `"roomName": 42`.
    case wrongType = "wrong_type"
    /// A v2 record with `"fullRoomDataJSON": "!!!not base64"`.
    case badBase64 = "bad_base64"
    /// A v2 record whose `fullRoomDataJSON` is the base64 of `not json`.
    case roomNotJSON = "room_not_json"
    /// A v3 record with the literal `1e999` as a wall transform's x translation.
    case nonFiniteNumber = "non_finite_number"
    /// A v3 record whose first wall's `transform` has 15 numbers.
    case shortTransform = "short_transform"
    /// A v3 record whose first wall has a negative width.
    case negativeDimension = "negative_dimension"
    /// A v3-shaped record with `"formatVersion": 9`.
    case unsupportedVersion = "unsupported_format_version"
    /// A well-formed v2 or v3 record repeating the `id` of an earlier good record in the
    /// same file (every second such record spells the id in lower case).
    case duplicateId = "duplicate_id"

    /// Orders kinds by their position in `allCases`.
    public static func < (a: CorruptKind, b: CorruptKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// A one-line human description, used for fixture READMEs.
    public var explanation: String {
        switch self {
        case .truncatedJSON: return "not valid JSON: a v3 record cut off halfway"
        case .invalidUTF8: return "not valid UTF-8: bytes 0xC3 0x28 inside roomName (v3)"
        case .notAnObject: return "valid JSON but not an object: [1,2,3]"
        case .missingRoom: return "required key missing: v3 without room"
        case .missingId: return "required key missing: v2 without id"
        case .wrongType: return "wrong type: \"roomName\": 42 (v3)"
        case .badBase64: return "base64 that does not decode: v2 fullRoomDataJSON \"!!!not base64\""
        case .roomNotJSON: return "raw room does not decode: v2 fullRoomDataJSON = base64 of \"not json\""
        case .nonFiniteNumber: return "number not finite: 1e999 in the first wall's transform (v3)"
        case .shortTransform: return "transform of 15 numbers on the first wall (v3)"
        case .negativeDimension: return "negative dimension: first wall width < 0 (v3)"
        case .unsupportedVersion: return "unsupported format version: formatVersion 9"
        case .duplicateId: return "duplicate id: repeats an earlier good record's id"
        }
    }
}

/// One real RoomPlan `CapturedRoom` that synthetic records are built from.
public struct SampleRoom: Sendable {
    /// The sample's name, e.g. `Bedroom3`; used as the records' `roomName`.
    public let name: String
    let json: GenJSON

    /// Parses a `CapturedRoom` JSON object (as `JSONEncoder` wrote it) with
    /// `JSONSerialization`. It must have at least one wall.
    public init(name: String, data: Data) throws {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw CorpusGeneratorError(message: "\(name): not valid JSON: \(error)")
        }
        guard object is [String: Any] else {
            throw CorpusGeneratorError(message: "\(name): not a JSON object")
        }
        let json = try GenJSON.from(foundation: object)
        guard let walls = json["walls"]?.arrayValue, !walls.isEmpty else {
            throw CorpusGeneratorError(message: "\(name): a sample room needs at least one wall")
        }
        self.name = name
        self.json = json
    }

    /// Loads every `*.capturedRoom.json` in `directory`, sorted by name (so the result does
    /// not depend on directory order). The name is the file name without that suffix.
    public static func load(directory: String) throws -> [SampleRoom] {
        let suffix = ".capturedRoom.json"
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw CorpusGeneratorError(message: "\(directory): cannot list sample rooms: \(error.localizedDescription)")
        }
        let files = names.filter { $0.hasSuffix(suffix) }.sorted()
        guard !files.isEmpty else {
            throw CorpusGeneratorError(message: "\(directory): no *\(suffix) files")
        }
        return try files.map { file in
            let path = (directory as NSString).appendingPathComponent(file)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CorpusGeneratorError(message: "\(path): cannot read")
            }
            return try SampleRoom(name: String(file.dropLast(suffix.count)), data: data)
        }
    }
}

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

    // MARK: - Records

    /// Everything random about one line, drawn in a fixed order from its own generator.
    struct Base {
        var sampleName: String
        var room: GenJSON
        var floorless: Bool
        var id: String
        var capturedAt: String
        var timestamp: Double
        var summaryVersion: Int
        var summary: GenJSON
    }

    /// 2023-01-01T00:00:00Z in Unix seconds.
    static let earliestCapture = 1_672_531_200
    /// Span of capture times: about three and a half years.
    static let captureSpan = 110_000_000
    /// Seconds from the Unix epoch to Foundation's reference date (2001-01-01).
    static let referenceDateOffset = 978_307_200

    func makeBase(rng: inout SplitMix64, floorless: Bool) -> Base {
        let sample = rooms[rng.next(below: rooms.count)]
        let motion = RigidTransform(
            angle: rng.next(in: 0...(2 * Double.pi)),
            dx: rng.next(in: -50...50), dz: rng.next(in: -50...50))
        var room = motion.apply(toRoom: sample.json)
        if var walls = room["walls"]?.arrayValue {
            rng.shuffle(&walls)
            room["walls"] = .array(walls)
        }
        if floorless {
            guard case .object(var o) = room else { preconditionFailure() }
            for key in ["floors", "sections", "story", "version"] { o.removeValue(forKey: key) }
            room = .object(o)
        }
        if let size = options.coreModelBytes {
            room["coreModel"] = .safeString(CorpusGenerator.randomBase64(characters: size, rng: &rng))
        }
        let id = rng.uuidString()
        let unix = CorpusGenerator.earliestCapture + rng.next(below: CorpusGenerator.captureSpan)
        let quarter = Double(rng.next(below: 4)) / 4
        let summaryVersion = rng.next(below: 2)
        return Base(
            sampleName: sample.name, room: room, floorless: floorless, id: id,
            capturedAt: CorpusGenerator.iso8601(unixSeconds: unix),
            timestamp: Double(unix - CorpusGenerator.referenceDateOffset) + quarter,
            summaryVersion: summaryVersion, summary: CorpusGenerator.staleSummary(of: room))
    }

    /// About `characters` characters of base64 (a multiple of 4) of random bytes.
    static func randomBase64(characters: Int, rng: inout SplitMix64) -> [UInt8] {
        let byteCount = (characters + 3) / 4 * 3
        var bytes = [UInt8](repeating: 0, count: byteCount)
        var i = 0
        while i < byteCount {
            var word = rng.next()
            for _ in 0..<8 where i < byteCount {
                bytes[i] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                i += 1
            }
        }
        return Base64.encode(bytes)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` for a Unix time (UTC), through `ReferenceDate` so the text
    /// never depends on locale or platform.
    public static func iso8601(unixSeconds: Int) -> String {
        ReferenceDate.iso8601(secondsSinceReferenceDate: Double(unixSeconds) - ReferenceDate.unixOffset)
    }

    /// The summary as the app last stored it: counts and wall figures roughly right, but
    /// `estimated_floor_area_sqm` 0 (the old bug) and no floor polygon.
    static func staleSummary(of room: GenJSON) -> GenJSON {
        func count(_ key: String) -> Int { room[key]?.arrayValue?.count ?? 0 }
        func round2(_ v: Double) -> Double { (v * 100).rounded() / 100 }
        let walls = room["walls"]?.arrayValue ?? []
        let dims = walls.map { w -> (Double, Double) in
            let d = w["dimensions"]?.arrayValue?.compactMap(\.doubleValue) ?? []
            return (d.count > 0 ? d[0] : 0, d.count > 1 ? d[1] : 0)
        }
        let widths = dims.map(\.0)
        let height = dims.map(\.1).max() ?? 0
        var categories: [String: GenJSON] = [:]
        for object in room["objects"]?.arrayValue ?? [] {
            if case .object(let category)? = object["category"], let key = category.keys.sorted().first {
                if case .int(let n)? = categories[key] {
                    categories[key] = .int(n + 1)
                } else {
                    categories[key] = .int(1)
                }
            }
        }
        let labels = (room["sections"]?.arrayValue ?? []).compactMap { $0["label"] }
        let shape: String
        switch walls.count {
        case 0...2: shape = "partial"
        case 3: shape = "triangular"
        case 4: shape = "rectangular"
        case 5: shape = "pentagonal"
        case 6: shape = "L-shaped or hexagonal"
        default: shape = "irregular (\(walls.count) walls)"
        }
        return .object([
            "wall_count": .int(walls.count),
            "door_count": .int(count("doors")),
            "window_count": .int(count("windows")),
            "opening_count": .int(count("openings")),
            "object_count": .int(count("objects")),
            "ceiling_height_m": .double(round2(height)),
            "estimated_floor_area_sqm": .int(0),
            "floor_area_method": .string("none"),
            "volume_m3": .int(0),
            "total_wall_area_sqm": .double(round2(dims.reduce(0) { $0 + $1.0 * $1.1 })),
            "perimeter_m": .double(round2(widths.reduce(0, +))),
            "longest_wall_m": .double(round2(widths.max() ?? 0)),
            "shortest_wall_m": .double(round2(widths.min() ?? 0)),
            "room_shape": .string(shape),
            "object_categories": .object(categories),
            "section_labels": .array(labels),
            "floor_polygon_2d_m": .array([]),
        ])
    }
}

extension CorpusGenerator.Base {
    var roomBase64: GenJSON { .safeString(Base64.encode(room.bytes)) }

    /// The good record in format `version`.
    func record(version: Int) -> GenJSON {
        switch version {
        case 1:
            return .object([
                "roomName": .string(sampleName),
                "timestamp": .double(timestamp),
                "fullRoomDataJSON": roomBase64,
                "summaryJSON": .safeString(Base64.encode(summary.bytes)),
                "floorAreaSqM": .int(0),
                "ceilingHeightM": summary["ceiling_height_m"] ?? .int(0),
                "wallCount": summary["wall_count"] ?? .int(0),
                "objectCount": summary["object_count"] ?? .int(0),
            ])
        case 2:
            return .object([
                "formatVersion": .int(2),
                "id": .string(id),
                "roomName": .string(sampleName),
                "capturedAt": .string(capturedAt),
                "fullRoomDataJSON": roomBase64,
                "summary": summary,
            ])
        default:
            return .object([
                "formatVersion": .int(3),
                "id": .string(id),
                "roomName": .string(sampleName),
                "capturedAt": .string(capturedAt),
                "room": room,
                "summary": summary,
                "summaryVersion": .int(summaryVersion),
            ])
        }
    }

    /// Room with the first wall changed by `change`.
    func roomWithFirstWall(_ change: (inout [String: GenJSON]) -> Void) -> GenJSON {
        var room = room
        var walls = room["walls"]!.arrayValue!
        guard case .object(var wall) = walls[0] else { preconditionFailure("walls are objects") }
        change(&wall)
        walls[0] = .object(wall)
        room["walls"] = .array(walls)
        return room
    }

    /// Writes the corrupt line of `kind` (without `\n`); returns its shape version and id.
    func writeCorrupt(_ kind: CorruptKind, duplicateOf: String?, to out: inout [UInt8]) -> (Int?, String?) {
        var v3 = record(version: 3)
        var v2 = record(version: 2)
        switch kind {
        case .truncatedJSON:
            let bytes = v3.bytes
            out.append(contentsOf: bytes.prefix(bytes.count / 2))
            return (3, id)
        case .invalidUTF8:
            v3["roomName"] = .raw(
                Array("\"\(sampleName.prefix(3))".utf8) + [0xC3, 0x28] + Array("\(sampleName.dropFirst(3))\"".utf8))
        case .notAnObject:
            out.append(contentsOf: "[1,2,3]".utf8)
            return (nil, nil)
        case .missingRoom:
            v3["room"] = nil
        case .missingId:
            v2["id"] = nil
            v2.write(to: &out)
            return (2, nil)
        case .wrongType:
            v3["roomName"] = .int(42)
        case .badBase64:
            v2["fullRoomDataJSON"] = .string("!!!not base64")
            v2.write(to: &out)
            return (2, id)
        case .roomNotJSON:
            v2["fullRoomDataJSON"] = .safeString(Base64.encode(Array("not json".utf8)))
            v2.write(to: &out)
            return (2, id)
        case .nonFiniteNumber:
            v3["room"] = roomWithFirstWall { wall in
                var t = wall["transform"]?.arrayValue ?? []
                if t.count > 12 { t[12] = .raw(Array("1e999".utf8)) } else { t.append(.raw(Array("1e999".utf8))) }
                wall["transform"] = .array(t)
            }
        case .shortTransform:
            v3["room"] = roomWithFirstWall { wall in
                wall["transform"] = .array(Array((wall["transform"]?.arrayValue ?? []).prefix(15)))
            }
        case .negativeDimension:
            v3["room"] = roomWithFirstWall { wall in
                var d = wall["dimensions"]?.arrayValue ?? [.int(1), .int(1), .int(0)]
                let width = d.first?.doubleValue ?? 1
                d[0] = .double(width > 0 ? -width : -1)
                wall["dimensions"] = .array(d)
            }
        case .unsupportedVersion:
            v3["formatVersion"] = .int(9)
            v3.write(to: &out)
            return (9, id)
        case .duplicateId:
            let original = duplicateOf ?? id
            if summaryVersion == 0 {
                v2["id"] = .string(original)
                v2.write(to: &out)
                return (2, original)
            }
            v3["id"] = .string(original)
            v3.write(to: &out)
            return (3, original)
        }
        v3.write(to: &out)
        return (3, id)
    }
}
