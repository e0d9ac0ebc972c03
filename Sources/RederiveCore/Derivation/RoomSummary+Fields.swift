extension RoomSummary {
    /// The summary fields, in the order the JSON writes them (<doc:RoomSummary>, "Fields"): the
    /// one table the keys (`Key`), the JSON writer (`jsonBytes()`), the finite and sign checks and
    /// the stored columns (`StoredSummary`, `SummaryColumn`) come from. A new field is its
    /// property, its derivation and one row here; with a `column`, both engines store it (the
    /// migration that adds the column follows from the row).
    public static let fields: [Field] = [
        Field("wall_count", column: "wall_count", .count { $0.wallCount }),
        Field("door_count", column: "door_count", .count { $0.doorCount }),
        Field("window_count", column: "window_count", .count { $0.windowCount }),
        Field("opening_count", column: "opening_count", .count { $0.openingCount }),
        Field("object_count", column: "object_count", .count { $0.objectCount }),
        Field("ceiling_height_m", unit: "m", column: "ceiling_height_m", .float { $0.ceilingHeightM }),
        Field("estimated_floor_area_sqm", unit: "m²", column: "floor_area_sqm", .float { $0.estimatedFloorAreaSqm }),
        Field("floor_area_method", column: "floor_area_method", .string { $0.floorAreaMethod.rawValue }),
        Field("volume_m3", unit: "m³", column: "volume_m3", .float { $0.volumeM3 }),
        Field("total_wall_area_sqm", unit: "m²", .float { $0.totalWallAreaSqm }),
        Field("perimeter_m", unit: "m", .float { $0.perimeterM }),
        Field("longest_wall_m", unit: "m", .float { $0.longestWallM }),
        Field("shortest_wall_m", unit: "m", .float { $0.shortestWallM }),
        Field("room_shape", .string { $0.roomShape }),
        Field(
            "object_categories",
            .structured { s, out in
                // Keys by their UTF-8 bytes (`JSONText.utf8Precedes`): the order the entries are kept in.
                appendList(s.objectCategories.entries, "{", "}", to: &out) { entry, out in
                    out.appendString(entry.key)
                    out.append(UInt8(ascii: ":"))
                    out.appendInt(entry.count)
                }
            }),
        Field(
            "section_labels",
            .structured { s, out in
                appendList(s.sectionLabels, "[", "]", to: &out) { $1.appendString($0) }
            }
        ),
        Field(
            "floor_polygon_2d_m",
            .structured { s, out in
                appendList(s.floorPolygon2D, "[", "]", to: &out) { p, out in
                    out.append(#"{"x":"#)
                    appendRounded(p.x, to: &out)
                    out.append(#","y":"#)
                    appendRounded(p.y, to: &out)
                    out.append(UInt8(ascii: "}"))
                }
            }),
    ]
}
