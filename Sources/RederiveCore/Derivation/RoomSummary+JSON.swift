extension RoomSummary {
    /// The summary JSON as UTF-8 bytes: one compact object, keys in the spec table's order,
    /// doubles rounded to 2 decimals as the app does, `object_categories` keys sorted by their
    /// UTF-8 bytes.
    ///
    /// Hand-written rather than `JSONEncoder`: it runs for every record (~20k/s) and must be
    /// byte-stable across platforms. A non-finite number (never produced by
    /// `SummaryDeriver`, which fails a room with any value that is not finite once rounded)
    /// is written as `null` to stay valid JSON.
    public func jsonBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512 + floorPolygon2D.count * 32)
        func raw(_ s: StaticString) {
            s.withUTF8Buffer { out.append(contentsOf: $0) }
        }
        raw("{\"wall_count\":"); Self.appendInt(wallCount, to: &out)
        raw(",\"door_count\":"); Self.appendInt(doorCount, to: &out)
        raw(",\"window_count\":"); Self.appendInt(windowCount, to: &out)
        raw(",\"opening_count\":"); Self.appendInt(openingCount, to: &out)
        raw(",\"object_count\":"); Self.appendInt(objectCount, to: &out)
        raw(",\"ceiling_height_m\":"); Self.appendRounded(ceilingHeightM, to: &out)
        raw(",\"estimated_floor_area_sqm\":"); Self.appendRounded(estimatedFloorAreaSqm, to: &out)
        raw(",\"floor_area_method\":"); JSONText.appendString(floorAreaMethod.rawValue, to: &out)
        raw(",\"volume_m3\":"); Self.appendRounded(volumeM3, to: &out)
        raw(",\"total_wall_area_sqm\":"); Self.appendRounded(totalWallAreaSqm, to: &out)
        raw(",\"perimeter_m\":"); Self.appendRounded(perimeterM, to: &out)
        raw(",\"longest_wall_m\":"); Self.appendRounded(longestWallM, to: &out)
        raw(",\"shortest_wall_m\":"); Self.appendRounded(shortestWallM, to: &out)
        raw(",\"room_shape\":"); JSONText.appendString(roomShape, to: &out)
        raw(",\"object_categories\":{")
        // Keys by their UTF-8 bytes (`JSONText.utf8Precedes`), counts taken with them: no key hashed again.
        for (i, (key, count)) in objectCategories.sorted(by: { JSONText.utf8Precedes($0.key, $1.key) }).enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(key, to: &out)
            out.append(UInt8(ascii: ":"))
            Self.appendInt(count, to: &out)
        }
        raw("},\"section_labels\":[")
        for (i, label) in sectionLabels.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONText.appendString(label, to: &out)
        }
        raw("],\"floor_polygon_2d_m\":[")
        for (i, p) in floorPolygon2D.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            raw("{\"x\":"); Self.appendRounded(p.x, to: &out)
            raw(",\"y\":"); Self.appendRounded(p.y, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        raw("]}")
        return out
    }

    /// The summary JSON as a `String` (see `jsonBytes()`).
    public func jsonString() -> String {
        String(decoding: jsonBytes(), as: UTF8.self)
    }

    /// Rounds to 2 decimals as the app does, `(v * 100).rounded() / 100`, with negative
    /// zero normalised to 0 so "-0.0" is never written.
    public static func roundedForJSON(_ value: Double) -> Double {
        let r = (value * 100).rounded() / 100
        return r == 0 ? 0 : r
    }

    private static func appendInt(_ value: Int, to out: inout [UInt8]) {
        out.append(contentsOf: String(value).utf8)
    }

    private static func appendRounded(_ value: Double, to out: inout [UInt8]) {
        let r = roundedForJSON(value)
        guard r.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        // Swift's description is the shortest round-tripping form: 11.81, 2.4, 0.0.
        out.append(contentsOf: r.description.utf8)
    }

}
