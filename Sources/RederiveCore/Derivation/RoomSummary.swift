/// The summary of a room (<doc:RoomSummary>, "Fields"; the fields are v1's, v2 changed how a
/// floorless room's floor area is found).
///
/// Doubles keep full precision here (they feed the numeric columns); only the JSON form
/// rounds to 2 decimals. Lengths in metres, areas in square metres.
public struct RoomSummary: Sendable, Equatable {
    /// Number of walls.
    public var wallCount: Int
    /// Number of doors.
    public var doorCount: Int
    /// Number of windows.
    public var windowCount: Int
    /// Number of openings.
    public var openingCount: Int
    /// Number of detected objects.
    public var objectCount: Int
    /// Largest wall height (`dimensions[1]`); 0 with no walls.
    public var ceilingHeightM: Double
    /// Floor area, obtained by `floorAreaMethod`.
    public var estimatedFloorAreaSqm: Double
    /// How `estimatedFloorAreaSqm` was obtained.
    public var floorAreaMethod: FloorAreaMethod
    /// Floor area × ceiling height.
    public var volumeM3: Double
    /// Σ wall width × height.
    public var totalWallAreaSqm: Double
    /// Σ wall widths.
    public var perimeterM: Double
    /// Widest wall; 0 with no walls.
    public var longestWallM: Double
    /// Narrowest wall; 0 with no walls.
    public var shortestWallM: Double
    /// Shape name from the wall count (`"rectangular"`, `"irregular (9 walls)"`...).
    public var roomShape: String
    /// Object count per category key, e.g. `["chair": 2]`, keys in the JSON's order.
    public var objectCategories: ObjectCategories
    /// Section labels, in order.
    public var sectionLabels: [String]
    /// The first floor's corners in world x/z (`SIMD2(x, z)`); empty with no floors.
    public var floorPolygon2D: [SIMD2<Double>]

    /// Creates a summary from its fields (normally done by `SummaryDeriver`).
    public init(
        wallCount: Int, doorCount: Int, windowCount: Int, openingCount: Int, objectCount: Int,
        ceilingHeightM: Double, estimatedFloorAreaSqm: Double, floorAreaMethod: FloorAreaMethod,
        volumeM3: Double, totalWallAreaSqm: Double, perimeterM: Double,
        longestWallM: Double, shortestWallM: Double, roomShape: String,
        objectCategories: ObjectCategories, sectionLabels: [String], floorPolygon2D: [SIMD2<Double>]
    ) {
        self.wallCount = wallCount
        self.doorCount = doorCount
        self.windowCount = windowCount
        self.openingCount = openingCount
        self.objectCount = objectCount
        self.ceilingHeightM = ceilingHeightM
        self.estimatedFloorAreaSqm = estimatedFloorAreaSqm
        self.floorAreaMethod = floorAreaMethod
        self.volumeM3 = volumeM3
        self.totalWallAreaSqm = totalWallAreaSqm
        self.perimeterM = perimeterM
        self.longestWallM = longestWallM
        self.shortestWallM = shortestWallM
        self.roomShape = roomShape
        self.objectCategories = objectCategories
        self.sectionLabels = sectionLabels
        self.floorPolygon2D = floorPolygon2D
    }
}
