import XCTest
@testable import RederiveCore

/// The text pages `status`, `show` and `history --id` print: labelled lines line up at one
/// column, and stored text cannot break a line or reach the terminal as a control sequence.
final class TextPageTests: XCTestCase {
    func testLabelledLinesStartTheirValueAtOneColumn() {
        var page = TextPage()
        for label in ["id", "store", "this build", "range rows", "open failures"] { page.line(label, "v") }
        let lines = page.text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 6, "five lines, each ending with a newline")
        for line in lines.dropLast() {
            XCTAssertEqual(line.distance(from: line.startIndex, to: line.lastIndex(of: "v")!), TextPage.valueColumn)
        }
        XCTAssertEqual(lines[4], "open failures  v")
        XCTAssertEqual(lines[0], "id             v")
    }

    func testALabelAtTheColumnKeepsOneSpace() {
        var page = TextPage()
        page.line("a label this long", "v")
        XCTAssertEqual(page.text, "a label this long v\n")
    }

    func testControlCharactersInLinesAreEscapedAndTablesAppendedAsTheyAre() {
        var page = TextPage()
        page.line("room", "Kitchen\u{1B}[2J\nrm -rf")
        page.line()
        page.line("  x\ty")
        page.append("  table\n")
        XCTAssertEqual(page.text, "room           Kitchen\\u001B[2J\\u000Arm -rf\n\n  x\\u0009y\n  table\n")
    }

    func testTheStatusPageLinesUpItsLabels() {
        let status = StoreStatus(
            path: "s.sqlite", totalRecords: 10, recordsByVersion: [], stale: .init(version: 2, missing: 1),
            failures: [], recentRuns: [], totalRuns: 0, currentVersion: 1, currentFingerprint: "f")
        let text = status.text()
        XCTAssertTrue(text.hasPrefix("store          s.sqlite\nthis build     summary v1, fingerprint f\n"), text)
        XCTAssertTrue(text.contains("\nstale          2 version, 0 fingerprint, 1 missing ("), text)
        XCTAssertTrue(text.contains("\nopen failures  none\n\nruns           none\n"), text)
    }
}
