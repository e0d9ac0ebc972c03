import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// Issue 22, F13: text from the data keeps the HTML reports well-formed XML.
final class HTMLDocumentTests: XCTestCase {
    func testNoncharactersAreDroppedAndControlsReplaced() {
        // Swift literals refuse most noncharacters: built from their values.
        let text = zip("abcdefg", [0xFFFE, 0xFFFF, 0xFDD0, 0xFDEF, 0x1_FFFE, 0x10_FFFF, 0x2_FFFF])
            .map { String($0) + String(Unicode.Scalar(UInt32($1))!) }.joined()
        XCTAssertEqual(HTMLDocument.escape(text), "abcdefg")
        XCTAssertEqual(HTMLDocument.escape("<a&\"'>\u{1B}\t\n"), "&lt;a&amp;&quot;&#39;&gt;\u{FFFD}\t\n")
        XCTAssertEqual(HTMLDocument.escape("\u{FFFD}\u{FDCF}\u{FDF0}"), "\u{FFFD}\u{FDCF}\u{FDF0}", "neighbours kept")
    }

    /// The review's check: a room name with U+FFFE and U+FFFF, parsed as XML.
    func testPreviewWithNoncharactersParsesAsXML() throws {
        var report = ChangeCollector().report()
        report.neverDerived = 1
        report.newRecords = [.init(id: "n1", roomName: "a\u{FFFE}b\u{FFFF}c" + HostileText.name, method: "wall_hull")]
        report.newRecordsByMethod = ["wall_hull": 1]
        report.store = "/data/\u{FFFE}.sqlite"
        let html = report.html()
        XCTAssertNoThrow(try XHTML.parse(html))
        XCTAssertTrue(html.contains("abc&lt;script&gt;"), html)
    }
}
