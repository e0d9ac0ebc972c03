import XCTest
@testable import RederiveCore

/// Issue 22, F11: a human log line is one line whatever a file or room name holds.
final class LogFormatTests: XCTestCase {
    /// A human log line keeps a file name's newline and escapes on its one line.
    func testHumanLogLineStaysOneLine() {
        let handler = StderrLogHandler(label: "t", format: .human, level: .info)
        let line = handler.humanLine(
            time: "T", level: .info, message: "reading a\n2026-01-01T00:00:00.000Z error   FORGED\u{1B}]0;x\u{7}",
            metadata: ["file": .string("b\rc"), "n": .stringConvertible(3)])
        XCTAssertEqual(
            line,
            "T info    reading a\\u000A2026-01-01T00:00:00.000Z error   FORGED\\u001B]0;x\\u0007 file=b\\u000Dc n=3")
    }
}
