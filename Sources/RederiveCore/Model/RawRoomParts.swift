import CRoomJSON

/// A raw room split for storage: the opaque base64 `coreModel` (most of the bytes, read by
/// no derivation) apart from the rest, so re-deriving reads a few KB instead of ~100 KB.
/// `joined()` gives back the raw bytes exactly as received.
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

    /// The raw bytes, exactly as received.
    public func joined() -> [UInt8] {
        guard coreModelOffset >= 0 else { return skeleton }
        var out = [UInt8]()
        out.reserveCapacity(skeleton.count + coreModel.count + Int(RJ_PADDING))
        out.append(contentsOf: skeleton[..<coreModelOffset])
        out.append(contentsOf: coreModel)
        out.append(contentsOf: skeleton[coreModelOffset...])
        return out
    }
}

extension RecordParser {
    /// Splits a raw room (already validated JSON) into skeleton and `coreModel`.
    public func split(room: [UInt8]) -> RawRoomParts {
        var offset = 0, length = 0
        let found = room.withUnsafeBufferPointer { buf in
            "coreModel".withCString { key in
                rj_find_string_member(handleForExtensions, buf.baseAddress, buf.count, room.capacity, key, &offset, &length)
            }
        }
        guard found == 1 else { return RawRoomParts(skeleton: room, coreModel: [], coreModelOffset: -1) }
        var skeleton = [UInt8]()
        skeleton.reserveCapacity(room.count - length + Int(RJ_PADDING))
        skeleton.append(contentsOf: room[..<offset])
        skeleton.append(contentsOf: room[(offset + length)...])
        return RawRoomParts(skeleton: skeleton, coreModel: Array(room[offset..<(offset + length)]), coreModelOffset: offset)
    }
}
