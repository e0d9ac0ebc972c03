import CRoomJSON

/// The floor a derive is measured against (`make bench`, "derive vs floor"): a bare simdjson
/// On-Demand pass over a stored raw room that touches every value the derivation reads and
/// builds nothing (`rj_floor_pass`). Not thread-safe: one per thread.
public final class RoomFloorPass {
    /// What the passes so far touched.
    public struct Totals: Sendable, Equatable {
        /// Rooms passed over.
        public var rooms = 0
        /// Surfaces and objects.
        public var elements = 0
        /// Numbers read: dimensions, transforms and floor corners.
        public var numbers = 0
        /// Bytes of category keys and section labels.
        public var stringBytes = 0
        /// The sum of every number read (keeps the work observable to the optimiser).
        public var checksum = 0.0

        /// Totals of nothing.
        public init() {}

        /// These totals and `other`'s, summed.
        public func adding(_ other: Totals) -> Totals {
            var sum = self
            sum.rooms += other.rooms
            sum.elements += other.elements
            sum.numbers += other.numbers
            sum.stringBytes += other.stringBytes
            sum.checksum += other.checksum
            return sum
        }
    }

    private let handle: OpaquePointer
    private var sums = rj_floor_sums()

    /// A pass with its own On-Demand parser and scratch buffer.
    public init() {
        guard let handle = rj_floor_create() else { fatalError("out of memory creating a JSON parser") }
        self.handle = handle
    }

    deinit { rj_floor_destroy(handle) }

    /// Passes over one stored raw room; false when a value it touches is not what a room holds.
    public func pass(_ room: UnsafeRawBufferPointer) -> Bool {
        guard let base = room.baseAddress else { return false }
        return rj_floor_pass(handle, base.assumingMemoryBound(to: UInt8.self), room.count, &sums) == RJ_OK.rawValue
    }

    /// What every pass so far touched.
    public var totals: Totals {
        var totals = Totals()
        totals.rooms = Int(sums.rooms)
        totals.elements = Int(sums.elements)
        totals.numbers = Int(sums.numbers)
        totals.stringBytes = Int(sums.strings)
        totals.checksum = sums.checksum
        return totals
    }
}
