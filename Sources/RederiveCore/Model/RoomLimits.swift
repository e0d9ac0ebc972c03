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
    /// Longest object category key kept, in UTF-8 bytes: a longer one is cut at decode, on a
    /// scalar boundary, to its first bytes that fit (real keys are words such as `storage`).
    /// A category is one key of the summary's `object_categories` and text of the drawings, so
    /// without a cap a letter followed by 100,000 combining marks (valid JSON, one character)
    /// is carried whole into every summary, comparison and preview.
    public static let maxCategoryBytes = 64

    /// The length of `bytes`'s first at most `maxCategoryBytes` bytes that end on a scalar
    /// boundary (`bytes` is valid UTF-8).
    static func categoryLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard bytes.count > maxCategoryBytes else { return bytes.count }
        var end = maxCategoryBytes
        // A continuation byte (10xxxxxx) at the cut is inside a scalar: cut before that scalar.
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return end
    }
}
