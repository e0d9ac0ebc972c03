import XCTest
import RederiveCore

/// The security review's hostile text (issue 22): markup, Markdown links, terminal escape
/// sequences (ESC[2J clears the screen, OSC 8 plants a hyperlink, OSC 0 sets the window
/// title), BEL, CR, LF, Unicode separators and XML noncharacters.
enum HostileText {
    static let esc = "\u{1B}", bel = "\u{7}"

    /// The review's room name, plus a newline, U+2028, U+FFFE/U+FFFF and emphasis marks.
    static let name =
        "<script>alert(1)</script>\"><img src=x onerror=alert(2)></svg>]]>|a|b| [click](javascript:alert(3)) "
        + "\(esc)[2J \(esc)]8;;http://evil.example/\(bel) LINK \(esc)]8;;\(bel) \(esc)]0;PWNED\(bel) \r OVERWRITE"
        + "\nsecond line\u{2028}*bold* _em_ `code` ~~gone~~ a\u{FFFE}b\u{FFFF}c\u{9B}31m"

    /// A capture time that is no time (rejected at import; its text is in the failure message).
    static let capturedAt = "<img src=x onerror=alert(5)>\(esc)[2J \(esc)]0;TS\(bel)\r\nFORGED"

    /// A file name that forges a log line when printed raw (a file name cannot hold `/`).
    static let fileName =
        "a\n2026-01-01T00:00:00.000Z error   FORGED LOG LINE \(esc)[2J\(esc)]0;PWNED\(bel)\r"
        + "<img src=x onerror=alert(2)>|b| [click](javascript:alert(3)).jsonl"

    /// Fails for every character a terminal would act on (all controls but LF, DEL, C1,
    /// U+2028/U+2029 and the bidi controls).
    static func assertTerminalSafe(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let raw = text.unicodeScalars.filter { $0 != "\n" && TerminalText.needsEscape($0) }
        XCTAssertTrue(
            raw.isEmpty, "\(what): raw \(raw.map { String(format: "U+%04X", $0.value) }) in\n\(text.debugDescription)",
            file: file, line: line)
    }

    /// Cells of a Markdown table row: the pipes not escaped with a backslash, minus one.
    static func markdownCellCount(_ row: String) -> Int {
        var count = 0, escaped = false
        for ch in row {
            if ch == "|" && !escaped { count += 1 }
            escaped = ch == "\\" && !escaped
        }
        return count - 1
    }
}
