extension RoomSummary {
    /// One summary field, a row of `RoomSummary.fields`: its JSON key, how it is read from a
    /// summary (which fixes its kind), its unit, and the column that stores it, if any.
    public struct Field: Sendable {
        /// The JSON key.
        public let key: Key
        /// The unit of a float field (`m`, `m²`, `m³`); nil for the others.
        public let unit: String?
        /// The typed column of `summary` and `summary_history` that holds it (nil: only in the JSON).
        public let column: String?
        /// How the value is read from a summary.
        let value: Value
        /// The key as written in the table: what the JSON writer appends, between quotes, before
        /// the value. A literal's bytes, read where they lie: the two lanes of a derive write
        /// every key of every summary, and an array of them would be retained and released
        /// each time, its count shared by both lanes.
        let keyText: StaticString

        /// How a field's value is read from a summary, by kind: plain closures, called once per
        /// record by the JSON writer (a key path projection costs more on that path).
        enum Value: Sendable {
            /// A whole number.
            case count(@Sendable (RoomSummary) -> Int)
            /// A measured number, 2 decimals in the JSON.
            case float(@Sendable (RoomSummary) -> Double)
            /// A name.
            case string(@Sendable (RoomSummary) -> String)
            /// An object or array, written by the closure.
            case structured(@Sendable (RoomSummary, inout JSONBuffer) -> Void)
        }

        init(_ key: StaticString, unit: String? = nil, column: String? = nil, _ value: Value) {
            self.key = Key(unchecked: key.description)
            (self.unit, self.column, self.value, keyText) = (unit, column, value, key)
        }

        /// What kind of value it holds.
        public var kind: Key.Kind {
            switch value {
            case .count: .count
            case .float: .float
            case .string: .string
            case .structured: .structured
            }
        }

        /// Its value in `summary` when it is a float field, nil for the other kinds.
        public func float(in summary: RoomSummary) -> Double? {
            if case .float(let read) = value { read(summary) } else { nil }
        }
    }
}
