/// A cheap pre-scan of a pipeline file's nesting depth, before the text reaches Yams.
///
/// Yams composes nodes recursively: a 10 KB file nested 5,000 levels deep overflows the
/// stack (exit 139). Pipeline files nest 4 or 5 levels; anything deeper than `limit` is
/// refused with its line number instead. The count over-estimates rather than misses:
/// every block indentation level, every `- `, `? ` or `key: ` that opens a block on the
/// same line, and every open flow bracket (`[`, `{`) count one level each.
public enum YAMLNestingCheck {
    /// The deepest nesting accepted.
    public static let limit = 64

    /// The 1-based line where nesting first goes deeper than `limit`, or nil.
    public static func firstTooDeepLine(_ text: String, limit: Int = YAMLNestingCheck.limit) -> Int? {
        var indents: [Int] = []  // open block indentation levels
        var flow = 0  // open flow brackets, carried across lines
        var lineNumber = 0
        for rawLine in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = Array(rawLine)
            var i = 0
            while i < line.count, line[i] == 0x20 || line[i] == 0x09 { i += 1 }
            // Blank and comment-only lines open nothing.
            if i == line.count || line[i] == UInt8(ascii: "#") || line[i] == 0x0D { continue }
            if flow == 0 {
                while let last = indents.last, last >= i { indents.removeLast() }
                indents.append(i)
            }
            var depth = indents.count + flow
            var quote: UInt8?
            var previous: UInt8 = 0x20
            while i < line.count {
                let c = line[i]
                if let q = quote {
                    if c == q { quote = nil } else if c == UInt8(ascii: "\\"), q == UInt8(ascii: "\"") { i += 1 }
                } else if c == UInt8(ascii: "#"), previous == 0x20 || previous == 0x09 {
                    break  // a comment runs to the end of the line
                } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                    quote = c
                } else if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") {
                    flow += 1
                    depth += 1
                } else if c == UInt8(ascii: "]") || c == UInt8(ascii: "}") {
                    flow = max(flow - 1, 0)
                } else if flow == 0, c == UInt8(ascii: "-") || c == UInt8(ascii: "?") || c == UInt8(ascii: ":"),
                    i + 1 == line.count || line[i + 1] == 0x20 || line[i + 1] == 0x09
                {
                    depth += 1  // `- - - x` or `a: b: c` nests on one line
                }
                if depth > limit { return lineNumber }
                previous = c
                i += 1
            }
            if depth > limit { return lineNumber }
        }
        return nil
    }
}
