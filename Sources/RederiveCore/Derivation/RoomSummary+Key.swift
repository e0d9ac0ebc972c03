extension RoomSummary {
    /// A summary JSON key: one per row of `fields`, in the order `jsonBytes()` writes them, the
    /// one list every report, comparison and test walks (<doc:RoomSummary>, "Fields").
    public struct Key: RawRepresentable, CaseIterable, Hashable, Sendable {
        /// The key as the JSON writes it, e.g. `wall_count`.
        public let rawValue: String

        /// The key named `rawValue`, nil when no field has it.
        public init?(rawValue: String) {
            guard Self.rows[rawValue] != nil else { return nil }
            self.rawValue = rawValue
        }

        /// A key of a row being declared (`Field`), not looked up.
        init(unchecked rawValue: String) { self.rawValue = rawValue }

        /// Every key, in the fields' order.
        public static let allCases: [Key] = RoomSummary.fields.map(\.key)

        /// Each key's row in `fields`.
        private static let rows: [String: Int] = Dictionary(
            uniqueKeysWithValues: RoomSummary.fields.enumerated().map { ($1.key.rawValue, $0) })

        /// Its field (every key has one: keys are only made from the table or checked against it).
        public var field: Field { RoomSummary.fields[Self.rows[rawValue]!] }

        /// The floor area's method (`floor_area_method`), which the preview tallies.
        public static let floorAreaMethod = Key(rawValue: "floor_area_method")!
        /// The floor area (`estimated_floor_area_sqm`), whose largest changes the preview lists.
        public static let estimatedFloorAreaSqm = Key(rawValue: "estimated_floor_area_sqm")!
        /// The longest wall (`longest_wall_m`), drawn as a wall length.
        public static let longestWallM = Key(rawValue: "longest_wall_m")!
        /// The shortest wall (`shortest_wall_m`), drawn as a wall length.
        public static let shortestWallM = Key(rawValue: "shortest_wall_m")!

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
        public var kind: Kind { field.kind }

        /// The unit of a float key (`m`, `m²`, `m³`); nil for the others.
        public var unit: String? { field.unit }
    }
}
