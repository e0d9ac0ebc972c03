/// Per-record text a preview keeps (room names, failure messages, file names), cut to a
/// bounded length so a preview's memory and files do not grow with the size of a field: a
/// room name may be megabytes long and still valid.
public enum PreviewText {
    /// Unicode scalars kept of a text.
    public static let limit = 200
    /// What follows a text that was cut.
    public static let marker = "…"
    /// The UTF-8 bytes that hold the kept scalars and the one after them (at most 4 each):
    /// all a store needs to read of a text that will be cut.
    public static let readBytes = 4 * (limit + 1)

    /// `text` cut to `limit` scalars followed by `marker`; `text` itself when not longer.
    /// Cut by scalars, not characters, so a prefix read by bytes (`readBytes`, a broken last
    /// character repaired to U+FFFD) is cut the same way, and so the text kept is at most
    /// 4 × `limit` bytes: a letter followed by 100,000 combining marks is one character but
    /// 100,001 scalars.
    public static func truncated(_ text: String) -> String { truncated(text, limit: limit) }

    /// `text` cut to `limit` scalars followed by `marker` (`truncated(_:)` with another limit).
    public static func truncated(_ text: String, limit: Int) -> String {
        let scalars = text.unicodeScalars
        guard let end = scalars.index(scalars.startIndex, offsetBy: max(0, limit), limitedBy: scalars.endIndex),
            end != scalars.endIndex
        else { return text }
        return String(scalars[..<end]) + marker
    }

    /// Whether `text` has more than `limit` Unicode scalars (reads no further than that).
    static func exceeds(_ text: String, scalars limit: Int) -> Bool {
        let scalars = text.unicodeScalars
        return scalars.index(scalars.startIndex, offsetBy: max(0, limit), limitedBy: scalars.endIndex)
            .map { $0 != scalars.endIndex } ?? false
    }
}
