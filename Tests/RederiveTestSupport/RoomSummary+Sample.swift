import RederiveCore

extension RoomSummary {
    /// A summary for tests, every field set: a rectangular 4 × 2.5 m bedroom, 2.4 m high, four
    /// walls, a door, a window and two chairs. `change` sets what a test is about, so a test
    /// names only those fields (and a new field is added here once, not in every test).
    static func sample(_ change: (inout RoomSummary) -> Void = { _ in }) -> RoomSummary {
        var summary = RoomSummary(
            wallCount: 4, doorCount: 1, windowCount: 1, openingCount: 0, objectCount: 2, ceilingHeightM: 2.4,
            estimatedFloorAreaSqm: 10, floorAreaMethod: .floorPolygon, volumeM3: 24, totalWallAreaSqm: 30.72,
            perimeterM: 12.8, longestWallM: 4, shortestWallM: 2.4, roomShape: "rectangular",
            objectCategories: ["chair": 2], sectionLabels: ["bedroom"],
            floorPolygon2D: [SIMD2(0, 0), SIMD2(4, 0), SIMD2(4, 2.5), SIMD2(0, 2.5)])
        change(&summary)
        return summary
    }
}
