/// How `RoomSummary.estimatedFloorAreaSqm` was obtained (<doc:RoomSummary>, "Floor area").
///
/// The raw values are the strings stored in the `floor_area_method` column and JSON key.
public enum FloorAreaMethod: String, Sendable {
    /// Sum of the shoelace areas of the floors' `polygonCorners`.
    case floorPolygon = "floor_polygon"
    /// No floors: the walls, walked end to end, close into a loop.
    case wallLoop = "wall_loop"
    /// No floors and no loop (summary v2): the outer boundary of the walls with the gaps between
    /// them closed (`FloorArea.wallOutline`).
    case wallOutline = "wall_outline"
    /// No floors, no loop and (v2) no closed outline, or one the hull stands for (the same polygon
    /// up to the join tolerance, or the same area up to noise: `FloorArea.hullStands`): convex
    /// hull of all wall ends (3 or more walls).
    case wallHull = "wall_hull"
    /// No floors and fewer than 3 walls: area 0.
    case none
}
