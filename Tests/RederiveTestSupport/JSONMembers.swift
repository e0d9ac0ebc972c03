/// The members of a compact JSON object, in the order of its text, each value as its raw text:
/// what the JSON writer's tests compare byte for byte, field by field.
enum JSONMembers {
    /// `text`'s top-level members (key unescaped only of `\"`; keys in a summary need no escape).
    static func topLevel(_ text: String) -> [(key: String, value: String)] {
        let b = Array(text.utf8)
        var members: [(key: String, value: String)] = []
        var i = 1
        /// The index just past the string that opens at `start`.
        func endOfString(_ start: Int) -> Int {
            var j = start + 1
            while j < b.count && b[j] != UInt8(ascii: "\"") { j += b[j] == UInt8(ascii: "\\") ? 2 : 1 }
            return j + 1
        }
        while i < b.count - 1, b[i] == UInt8(ascii: "\"") {
            let keyEnd = endOfString(i)
            let key = String(decoding: b[(i + 1)..<(keyEnd - 1)], as: UTF8.self)
            i = keyEnd + 1  // past the colon
            let start = i
            var depth = 0
            scan: while i < b.count {
                switch b[i] {
                case UInt8(ascii: "\""): i = endOfString(i) - 1
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { break scan }
                    depth -= 1
                case UInt8(ascii: ","): if depth == 0 { break scan }
                default: break
                }
                i += 1
            }
            members.append((key, String(decoding: b[start..<i], as: UTF8.self)))
            if i < b.count && b[i] == UInt8(ascii: ",") { i += 1 }
        }
        return members
    }
}
