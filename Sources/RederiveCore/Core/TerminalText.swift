/// Untrusted text (room names, file names, failure messages, pipeline names) made safe to
/// print on a terminal or in a human log line.
///
/// A terminal acts on control characters: ESC starts sequences that clear the screen
/// (`ESC[2J`), plant hyperlinks (OSC 8) or set the window title (OSC 0), CR returns to the
/// start of the line to overwrite it, and LF in a file name forges a whole log line. Each
/// such character is written visibly as `\u001B` (JSON's spelling) instead: every C0 and
/// C1 control character and DEL, the Unicode line and paragraph separators, and the
/// bidirectional overrides and isolates, which reorder what a line appears to say. Other
/// text, backslashes included, is left exactly as it is, so an ordinary name reads the
/// same. JSON outputs escape on their own and do not use this.
public enum TerminalText {
    /// `text` with every character a terminal would act on written as `\uXXXX`; the text
    /// itself when it has none (the common case, without copying).
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) {
                out += "\\u" + hex4(scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether `scalar` is written escaped by `escaped(_:)`.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // C0, DEL, C1 (0x9B is a one-byte CSI)
        case 0x2028, 0x2029: true  // line and paragraph separators
        default: MarkupText.isBidiControl(scalar)  // bidirectional embeddings, overrides, isolates
        }
    }

    /// Four upper-case hex digits (every escaped scalar is below U+10000).
    static func hex4(_ value: UInt32) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([12, 8, 4, 0].map { digits[Int((value >> UInt32($0)) & 0xF)] })
    }
}
