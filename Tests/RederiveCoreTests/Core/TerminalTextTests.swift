import XCTest
@testable import RederiveCore

/// Issue 22, F11: untrusted text reaches a terminal with its control characters escaped.
final class TerminalTextTests: XCTestCase {
    func testControlCharactersAreWrittenVisibly() {
        XCTAssertEqual(TerminalText.escaped("a\u{1B}[2Jb"), "a\\u001B[2Jb")
        XCTAssertEqual(TerminalText.escaped("x\r\ny\tz\u{7}"), "x\\u000D\\u000Ay\\u0009z\\u0007")
        XCTAssertEqual(TerminalText.escaped("\u{7F}\u{9B}31m\u{85}"), "\\u007F\\u009B31m\\u0085", "DEL, C1 CSI, NEL")
        XCTAssertEqual(TerminalText.escaped("a\u{2028}b\u{2029}"), "a\\u2028b\\u2029")
        XCTAssertEqual(TerminalText.escaped("\u{202E}evil\u{2066}"), "\\u202Eevil\\u2066", "bidi overrides")
        XCTAssertEqual(TerminalText.escaped("\u{0}"), "\\u0000")
    }

    func testOrdinaryTextIsUnchanged() {
        for text in ["", "Living room", "Küche / 厨房 🛋", "C:\\rooms\\a.jsonl", "<b>&amp;", "tab-free"] {
            XCTAssertEqual(TerminalText.escaped(text), text)
        }
    }

    func testEscapedTextHasNoControlCharacterLeftAndIsStable() {
        let hostile = (0..<0x110).compactMap(Unicode.Scalar.init).map(String.init).joined() + "\u{2028}\u{202A}"
        let escaped = TerminalText.escaped(hostile)
        XCTAssertFalse(escaped.unicodeScalars.contains(where: TerminalText.needsEscape))
        XCTAssertEqual(TerminalText.escaped(escaped), escaped, "escaping twice changes nothing")
    }
}
