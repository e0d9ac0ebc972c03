import CRoomJSON

extension RecordParser {
    /// Splits a raw room (already validated JSON) into skeleton and `coreModel`.
    public func split(room: [UInt8]) -> RawRoomParts {
        var offset = 0, length = 0
        let found = room.withUnsafeBufferPointer { buf in
            "coreModel".withCString { key in
                rj_find_string_member(
                    handleForExtensions, buf.baseAddress, buf.count, room.capacity, key, &offset, &length)
            }
        }
        guard found == 1 else { return RawRoomParts(skeleton: room, coreModel: [], coreModelOffset: -1) }
        var skeleton = [UInt8]()
        skeleton.reserveCapacity(room.count - length + Int(RJ_PADDING))
        skeleton.append(contentsOf: room[..<offset])
        skeleton.append(contentsOf: room[(offset + length)...])
        return RawRoomParts(
            skeleton: skeleton, coreModel: Array(room[offset..<(offset + length)]), coreModelOffset: offset)
    }
}
