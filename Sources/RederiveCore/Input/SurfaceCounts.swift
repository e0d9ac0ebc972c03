import CRoomJSON

/// How many surfaces of each kind a parsed room has (`rj_room.surface_counts`: walls, doors,
/// windows, openings, floors), read in place: the room is built once per record, and copying
/// the counts into arrays was three heap allocations a record.
struct SurfaceCounts {
    private let counts: (Int32, Int32, Int32, Int32, Int32)

    /// The counts of `room`.
    init(_ room: rj_room) { counts = room.surface_counts }

    /// How many surfaces of kind `kind` (0...4).
    subscript(kind: Int) -> Int {
        withUnsafeBytes(of: counts) { Int($0.load(fromByteOffset: kind * 4, as: Int32.self)) }
    }

    /// Where kind `kind`'s surfaces start in the flat surface array: the counts of the kinds before it.
    func offset(_ kind: Int) -> Int {
        (0..<kind).reduce(0) { $0 + self[$1] }
    }
}
