import Foundation
import RederiveCore

extension CorpusGenerator {

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
