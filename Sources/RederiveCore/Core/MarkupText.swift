/// Untrusted text (room names, categories, file names, messages) inside a document a person
/// reads: the SVG drawings, the HTML reports and `preview.md`. One rule for all of them, so a
/// name reads the same in every document.
///
/// Two kinds of character are never written as they are:
/// - the bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069):
///   an unmatched U+202E in a room name visually reverses the rest of its line (a drawing's
///   title, a report's row), so a name could show other figures or words than the ones there;
/// - Unicode's 66 noncharacters (U+FDD0-U+FDEF and the last two code points of every plane):
///   U+FFFE and U+FFFF are not XML characters (a parser stops there), the others are
///   discouraged, and none is text.
/// Markup drops both (`escaped(_:)`); Markdown drops the noncharacters and writes the bidi
/// controls visibly as `\u202E`, as the terminal does (`TerminalText`).
enum MarkupText {
    /// Whether `scalar` is a bidirectional embedding, override or isolate control.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// Whether `scalar` is one of Unicode's 66 noncharacters.
    static func isNoncharacter(_ scalar: Unicode.Scalar) -> Bool {
        (0xFDD0...0xFDEF).contains(scalar.value) || scalar.value & 0xFFFE == 0xFFFE
    }

    /// `text` as XML content or a quoted attribute value (SVG and XHTML alike): the five
    /// special characters escaped; control characters other than tab, LF and CR (which XML 1.0
    /// forbids, C0, or discourages, DEL and C1: U+009B is a terminal's one-byte CSI) replaced
    /// by U+FFFD; bidi controls and noncharacters dropped. The result is always well-formed.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x26: out += "&amp;"
            case 0x3C: out += "&lt;"
            case 0x3E: out += "&gt;"
            case 0x22: out += "&quot;"
            case 0x27: out += "&#39;"
            case 0x9, 0xA, 0xD: out.unicodeScalars.append(scalar)
            case 0...0x1F, 0x7F...0x9F: out += "\u{FFFD}"
            case _ where isBidiControl(scalar) || isNoncharacter(scalar): continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
