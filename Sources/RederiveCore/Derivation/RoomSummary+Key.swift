extension RoomSummary {
    /// The summary JSON keys, in the order `jsonBytes()` writes them: the one list every
    /// report, comparison and test walks (<doc:RoomSummary>, "Fields").
    public enum Key: String, CaseIterable, Sendable {
        case wallCount = "wall_count"
        case doorCount = "door_count"
        case windowCount = "window_count"
        case openingCount = "opening_count"
        case objectCount = "object_count"
        case ceilingHeightM = "ceiling_height_m"
        case estimatedFloorAreaSqm = "estimated_floor_area_sqm"
        case floorAreaMethod = "floor_area_method"
        case volumeM3 = "volume_m3"
        case totalWallAreaSqm = "total_wall_area_sqm"
        case perimeterM = "perimeter_m"
        case longestWallM = "longest_wall_m"
        case shortestWallM = "shortest_wall_m"
        case roomShape = "room_shape"
        case objectCategories = "object_categories"
        case sectionLabels = "section_labels"
        case floorPolygon2DM = "floor_polygon_2d_m"

        /// What kind of value a key holds, which decides how a change of it is described.
        public enum Kind: String, Sendable {
            /// A measured number, 2 decimals in the JSON: distributions of before, after and change.
            case float
            /// A whole number of elements: transitions (`4 → 5`) and the change's distribution.
            case count
            /// A name: transitions (`none → floor_polygon`).
            case string
            /// An object or array: only whether it changed.
            case structured
        }

        /// How this key's value is described.
        public var kind: Kind {
            switch self {
            case .wallCount, .doorCount, .windowCount, .openingCount, .objectCount: .count
            case .ceilingHeightM, .estimatedFloorAreaSqm, .volumeM3, .totalWallAreaSqm, .perimeterM, .longestWallM,
                .shortestWallM:
                .float
            case .floorAreaMethod, .roomShape: .string
            case .objectCategories, .sectionLabels, .floorPolygon2DM: .structured
            }
        }

        /// The unit of a float key (`m`, `m²`, `m³`); nil for the others.
        public var unit: String? {
            switch self {
            case .ceilingHeightM, .perimeterM, .longestWallM, .shortestWallM: "m"
            case .estimatedFloorAreaSqm, .totalWallAreaSqm: "m²"
            case .volumeM3: "m³"
            default: nil
            }
        }
    }
}

extension RoomSummary {
    /// The value of a `float` key (nil for the other kinds): what the finite and sign
    /// checks walk, so a new float field is checked by adding it to `Key` alone.
    public func float(_ key: Key) -> Double? {
        switch key {
        case .ceilingHeightM: ceilingHeightM
        case .estimatedFloorAreaSqm: estimatedFloorAreaSqm
        case .volumeM3: volumeM3
        case .totalWallAreaSqm: totalWallAreaSqm
        case .perimeterM: perimeterM
        case .longestWallM: longestWallM
        case .shortestWallM: shortestWallM
        default: nil
        }
    }
}
