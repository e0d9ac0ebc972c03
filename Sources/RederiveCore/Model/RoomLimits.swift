/// The largest room a record may hold; a bigger one is a per-record `decode:room_too_large`.
///
/// Real RoomPlan scans have tens of walls and objects and a floor outline of tens of
/// corners; the limits are three orders of magnitude above that, yet keep every
/// derivation's work per record small (the `wall_loop` walk is near-linear, but the hull
/// sorts and every count is held in memory), so no single record can stall a run.
public enum RoomLimits {
    /// Most surfaces of one kind: walls, doors, windows, openings or floors, each counted
    /// on its own.
    public static let maxSurfacesPerKind = 10_000
    /// Most detected objects.
    public static let maxObjects = 10_000
    /// Most floor polygon corners, all floors together.
    public static let maxFloorCorners = 10_000
}
