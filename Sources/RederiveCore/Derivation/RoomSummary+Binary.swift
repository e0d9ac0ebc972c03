/// A summary's exact fields as bytes (doubles bit for bit, unlike its JSON, which rounds):
/// what a plan's check keeps of each derived record so its apply writes the same columns
/// without deriving again (`DeriveSpill`). Little-endian; integers and doubles 8 bytes,
/// strings and collections a 4-byte count first. Decoding calls the memberwise initialiser,
/// so a field added to `RoomSummary` does not compile until it is added here too.
extension RoomSummary {
    /// Appends the summary's fields to `out`.
    package func appendBinary(to out: inout [UInt8]) {
        for value in [wallCount, doorCount, windowCount, openingCount, objectCount] {
            Self.append(UInt64(bitPattern: Int64(value)), to: &out)
        }
        for value in [
            ceilingHeightM, estimatedFloorAreaSqm, volumeM3, totalWallAreaSqm, perimeterM, longestWallM,
            shortestWallM,
        ] {
            Self.append(value.bitPattern, to: &out)
        }
        Self.append(floorAreaMethod.rawValue, to: &out)
        Self.append(roomShape, to: &out)
        Self.append(UInt64(objectCategories.count), to: &out)
        for entry in objectCategories {
            Self.append(entry.key, to: &out)
            Self.append(UInt64(bitPattern: Int64(entry.count)), to: &out)
        }
        Self.append(UInt64(sectionLabels.count), to: &out)
        for label in sectionLabels { Self.append(label, to: &out) }
        Self.append(UInt64(floorPolygon2D.count), to: &out)
        for corner in floorPolygon2D {
            Self.append(corner.x.bitPattern, to: &out)
            Self.append(corner.y.bitPattern, to: &out)
        }
    }

    /// The summary `appendBinary` wrote at `offset` in `bytes` (moved past it), or nil when the
    /// bytes are not one.
    package static func decodeBinary(_ bytes: [UInt8], at offset: inout Int) -> RoomSummary? {
        var reader = BinaryReader(bytes: bytes, offset: offset)
        guard let summary = reader.summary() else { return nil }
        offset = reader.offset
        return summary
    }

    private static func append(_ value: UInt64, to out: inout [UInt8]) { LittleEndian.append(value, to: &out) }

    private static func append(_ text: String, to out: inout [UInt8]) {
        let utf8 = text.utf8
        append(UInt64(utf8.count), to: &out)
        out.append(contentsOf: utf8)
    }

    /// Reads what `appendBinary` wrote, every read bounds-checked.
    private struct BinaryReader {
        let bytes: [UInt8]
        var offset: Int

        mutating func word() -> UInt64? { LittleEndian.word(bytes, at: &offset) }

        mutating func int() -> Int? { word().map { Int(Int64(bitPattern: $0)) } }
        mutating func double() -> Double? { word().map(Double.init(bitPattern:)) }

        /// A count of items that each take at least `least` bytes (a damaged count fails here).
        mutating func count(least: Int) -> Int? {
            guard let n = word(), n <= UInt64(bytes.count - offset) / UInt64(least) else { return nil }
            return Int(n)
        }

        mutating func text() -> String? {
            guard let n = count(least: 1) else { return nil }
            defer { offset += n }
            return String(decoding: bytes[offset..<offset + n], as: UTF8.self)
        }

        mutating func summary() -> RoomSummary? {
            guard let walls = int(), let doors = int(), let windows = int(), let openings = int(),
                let objects = int(), let ceiling = double(), let area = double(), let volume = double(),
                let wallArea = double(), let perimeter = double(), let longest = double(), let shortest = double(),
                let methodName = text(), let method = FloorAreaMethod(rawValue: methodName), let shape = text(),
                let categoryCount = count(least: 16)
            else { return nil }
            var counts: [String: Int] = [:]
            for _ in 0..<categoryCount {
                guard let key = text(), let n = int() else { return nil }
                counts[key] = n
            }
            let categories = ObjectCategories(counts)
            guard let labelCount = count(least: 8) else { return nil }
            var labels: [String] = []
            for _ in 0..<labelCount {
                guard let label = text() else { return nil }
                labels.append(label)
            }
            guard let cornerCount = count(least: 16) else { return nil }
            var corners: [SIMD2<Double>] = []
            corners.reserveCapacity(cornerCount)
            for _ in 0..<cornerCount {
                guard let x = double(), let z = double() else { return nil }
                corners.append(SIMD2(x, z))
            }
            return RoomSummary(
                wallCount: walls, doorCount: doors, windowCount: windows, openingCount: openings,
                objectCount: objects, ceilingHeightM: ceiling, estimatedFloorAreaSqm: area, floorAreaMethod: method,
                volumeM3: volume, totalWallAreaSqm: wallArea, perimeterM: perimeter, longestWallM: longest,
                shortestWallM: shortest, roomShape: shape, objectCategories: categories, sectionLabels: labels,
                floorPolygon2D: corners)
        }
    }
}
