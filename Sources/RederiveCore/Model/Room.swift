/// The parts of a RoomPlan `CapturedRoom` that summary derivations read.
///
/// Built from the raw room JSON by `RecordParser.decodeRoom(_:)`; the raw bytes themselves (with the
/// opaque `coreModel`) stay untouched in the record. World axes: y is up, the floor plan
/// lies in world x/z.
public struct Room: Sendable, Equatable {
    /// Wall surfaces, in the order the raw room lists them.
    public var walls: [Surface]
    /// Door surfaces.
    public var doors: [Surface]
    /// Window surfaces.
    public var windows: [Surface]
    /// Opening surfaces.
    public var openings: [Surface]
    /// Floor surfaces (absent in exports from older app versions: then empty).
    public var floors: [Surface]
    /// Detected objects (furniture, appliances...).
    public var objects: [RoomObject]
    /// The `label` of each section, in order ("" for a section without one).
    public var sectionLabels: [String]

    /// Creates a room from its parts.
    public init(
        walls: [Surface] = [], doors: [Surface] = [], windows: [Surface] = [],
        openings: [Surface] = [], floors: [Surface] = [], objects: [RoomObject] = [],
        sectionLabels: [String] = []
    ) {
        self.walls = walls
        self.doors = doors
        self.windows = windows
        self.openings = openings
        self.floors = floors
        self.objects = objects
        self.sectionLabels = sectionLabels
    }
}

/// A planar surface of the room: a wall, door, window, opening or floor.
public struct Surface: Sendable, Equatable {
    /// `[width, height, 0]` in metres.
    public var dimensions: SIMD3<Double>
    /// Placement of the surface in world space.
    public var transform: Transform
    /// Floor outline in the surface's local plane (`[x, y, 0]` points); empty except on floors.
    public var polygonCorners: [SIMD3<Double>]

    /// Creates a surface.
    public init(dimensions: SIMD3<Double>, transform: Transform, polygonCorners: [SIMD3<Double>] = []) {
        self.dimensions = dimensions
        self.transform = transform
        self.polygonCorners = polygonCorners
    }
}

/// A detected object: its category key (`"chair"`, `"storage"`...), size and placement.
public struct RoomObject: Sendable, Equatable {
    /// The single key of the raw `category` object, e.g. `"chair"`.
    public var category: String
    /// `[width, height, depth]` in metres.
    public var dimensions: SIMD3<Double>
    /// Placement of the object in world space.
    public var transform: Transform

    /// Creates an object.
    public init(category: String, dimensions: SIMD3<Double>, transform: Transform) {
        self.category = category
        self.dimensions = dimensions
        self.transform = transform
    }
}

/// A 4x4 affine transform stored column-major, as RoomPlan's `simd_float4x4` encodes:
/// elements 0-3 are column 0, elements 12-14 the translation.
///
/// Held inline (a `SIMD16`), not in an array: a room has one per surface and object, and an
/// array each was a heap allocation, a retain and a release per surface on a derive's hot path.
public struct Transform: Sendable, Equatable {
    /// The 16 elements, column-major.
    public var storage: SIMD16<Double>

    /// The 16 elements, column-major, as an array (a copy: read single elements by subscript).
    public var elements: [Double] {
        get { (0..<16).map { storage[$0] } }
        set { self = Transform(newValue) }
    }

    /// Creates a transform from 16 column-major elements.
    public init(_ elements: [Double]) {
        precondition(elements.count == 16, "a transform has 16 elements")
        storage = SIMD16(elements)
    }

    /// Creates a transform from the 16 column-major elements at `elements`.
    init(_ elements: UnsafePointer<Double>) {
        storage = UnsafeRawPointer(elements).loadUnaligned(as: SIMD16<Double>.self)
    }

    /// The identity transform.
    public static let identity = Transform([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])

    /// Element `index` (0...15), column-major.
    public subscript(index: Int) -> Double { storage[index] }

    /// The translation (elements 12, 13, 14).
    public var translation: SIMD3<Double> { SIMD3(storage[12], storage[13], storage[14]) }

    /// Column `index` (0...3) as x, y, z.
    public func column(_ index: Int) -> SIMD3<Double> {
        SIMD3(storage[index * 4], storage[index * 4 + 1], storage[index * 4 + 2])
    }

    /// Applies the transform to a point (w = 1).
    public func apply(to point: SIMD3<Double>) -> SIMD3<Double> {
        column(0) * point.x + column(1) * point.y + column(2) * point.z + translation
    }
}
