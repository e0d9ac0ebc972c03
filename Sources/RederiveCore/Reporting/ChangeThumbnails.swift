/// The preview's room drawings: per geometric (float) summary field, the records with the
/// largest absolute changes, each with a small plan of its raw room (`RoomDrawing`, style
/// `.thumbnail`).
///
/// Memory stays bounded whatever the number of records: each field keeps exactly its top
/// `limit` entries, and a record's room is decoded and drawn only when it enters a list
/// (in a random order that is about `limit × ln(records)` times per field).
/// Not thread-safe: fed by `ChangeCollector` on one thread.
final class ChangeThumbnails {
    /// Drawings kept per field.
    static let defaultLimit = 8

    let limit: Int
    private var lists: [String: [ChangeReport.RoomThumbnail]] = [:]
    private let parser = RecordParser()
    private let deriver: SummaryDeriver

    init(limit: Int = ChangeThumbnails.defaultLimit, deriver: SummaryDeriver) {
        self.limit = max(0, limit)
        self.deriver = deriver
    }

    /// Whether a key's changes get drawings: the measured fields (lengths, areas, volume).
    static func draws(_ key: String) -> Bool { RoomSummary.Key(rawValue: key)?.kind == .float }

    /// Whether a key's change is about one wall, marked in its drawing: the shortest or the
    /// longest wall (an area or a volume is no single element).
    static func marksWall(_ key: String) -> Bool {
        key == RoomSummary.Key.shortestWallM.rawValue || key == RoomSummary.Key.longestWallM.rawValue
    }

    /// One record's changes: `changes` holds (key, before, after) for its changed geometric
    /// fields; the room is decoded from `rawRoom` (once, and only if some list takes it).
    func add(id: String, roomName: String?, rawRoom: [UInt8], changes: [(key: String, before: Double, after: Double)]) {
        guard limit > 0 else { return }
        var room: Room??
        // One drawing per marked wall length (nil: nothing marked), made when a list takes it.
        var drawings: [Double?: String?] = [:]
        for change in changes {
            let delta = RoomSummary.roundedForJSON(change.after - change.before)
            let score = abs(delta)
            var list = lists[change.key] ?? []
            // Largest |Δ| first, ties by id: does this record enter?
            let position =
                list.firstIndex { score > abs($0.delta) || (score == abs($0.delta) && id < $0.id) } ?? list.count
            guard position < limit else { continue }
            if room == nil {
                switch parser.decodeRoom(rawRoom) {
                case .success(let decoded): room = .some(decoded)
                case .failure: room = .some(nil)
                }
            }
            guard let decoded = room ?? nil else { return }
            // A changed shortest or longest wall is one element: the wall the stored value measured.
            let marked = Self.marksWall(change.key) ? change.before : nil
            if drawings[marked] == nil {
                drawings[marked] = .some(
                    RoomDrawing.svg(
                        decoded, title: roomName, subtitle: id, style: .thumbnail, deriver: deriver,
                        markedWallLength: marked))
            }
            guard let svg = drawings[marked] ?? nil else { return }
            list.insert(
                ChangeReport.RoomThumbnail(
                    id: id, roomName: roomName, before: change.before, after: change.after, delta: delta, svg: svg),
                at: position)
            if list.count > limit { list.removeLast(list.count - limit) }
            lists[change.key] = list
        }
    }

    /// The drawings of `key`, largest |Δ| first, ties by id.
    func list(_ key: String) -> [ChangeReport.RoomThumbnail] { lists[key] ?? [] }
}

extension ChangeReport {
    /// One record among a field's largest changes, with a drawing of its room.
    public struct RoomThumbnail: Sendable, Equatable {
        /// Record id.
        public var id: String
        /// Room name, when known.
        public var roomName: String?
        /// Stored value.
        public var before: Double
        /// New value.
        public var after: Double
        /// after − before, 2 decimals.
        public var delta: Double
        /// The plan (`RoomDrawing.Style.thumbnail`), an `<svg>` element.
        public var svg: String
    }
}
