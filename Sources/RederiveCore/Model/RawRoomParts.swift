import CRoomJSON

/// A raw room split for storage: the opaque base64 `coreModel` (most of the bytes, read by
/// no derivation) apart from the rest, so re-deriving reads a few KB instead of ~100 KB.
/// `joined()` gives back the raw bytes exactly as received (nil when damaged).
public struct RawRoomParts: Sendable, Equatable {
    /// The room JSON with the `coreModel` string emptied (`"coreModel":""`); still valid JSON
    /// and complete for every derivation.
    public var skeleton: [UInt8]
    /// The `coreModel` string's raw JSON text between its quotes, escapes untouched.
    public var coreModel: [UInt8]
    /// Where `coreModel` goes back into `skeleton` (just after the opening quote); -1 when
    /// the room had no string `coreModel`.
    public var coreModelOffset: Int

    /// Creates parts.
    public init(skeleton: [UInt8], coreModel: [UInt8], coreModelOffset: Int) {
        self.skeleton = skeleton
        self.coreModel = coreModel
        self.coreModelOffset = coreModelOffset
    }

    /// What is wrong with damaged parts, for messages.
    public var damage: String {
        "its core model offset \(coreModelOffset) lies outside its \(skeleton.count)-byte skeleton"
    }

    /// The raw bytes, exactly as received; nil when the parts are damaged (the offset lies
    /// outside the skeleton: a store edited or corrupted by hand), never a crash.
    public func joined() -> [UInt8]? {
        guard coreModelOffset >= 0 else { return skeleton }
        guard coreModelOffset <= skeleton.count else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(skeleton.count + coreModel.count + Int(RJ_PADDING))
        out.append(contentsOf: skeleton[..<coreModelOffset])
        out.append(contentsOf: coreModel)
        out.append(contentsOf: skeleton[coreModelOffset...])
        return out
    }
}
