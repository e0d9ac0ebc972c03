import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// Issue 22, F12: text from the data in `preview.md` shows as text: no inline HTML, links,
/// emphasis, broken table rows or terminal escapes.
final class ChangeReportMarkdownTests: XCTestCase {
    func testCellEscapesHTMLMarkdownPipesAndLineBreaks() {
        XCTAssertEqual(ChangeReport.cell("<b>&</b>"), "&lt;b&gt;&amp;&lt;/b&gt;")
        XCTAssertEqual(ChangeReport.cell("[x](javascript:y)"), "\\[x\\](javascript:y)")
        XCTAssertEqual(ChangeReport.cell("![i](u)"), "!\\[i\\](u)")
        XCTAssertEqual(ChangeReport.cell("*a* _b_ `c` ~~d~~ \\"), "\\*a\\* \\_b\\_ \\`c\\` \\~\\~d\\~\\~ \\\\")
        XCTAssertEqual(ChangeReport.cell("a|b"), "a\\|b")
        XCTAssertEqual(ChangeReport.cell("a__b_ _c x_y_"), "a\\_\\_b\\_ \\_c x_y\\_", "`_` kept only between letters")
        XCTAssertEqual(
            ChangeReport.cell("a\rb\nc\r\nd\u{2028}e\u{2029}f\u{1B}[2J\u{7}"),
            "a\\u000Db\\u000Ac\\u000D\\u000Ad\\u2028e\\u2029f\\u001B\\[2J\\u0007")
    }

    func testOrdinaryValuesReadAsWritten() {
        for text in ["floor_polygon", "wall_hull", "Room c-never", "(no summary)", "Küche 2.OG", "rooms-v2.jsonl"] {
            XCTAssertEqual(ChangeReport.cell(text), text)
        }
        XCTAssertEqual(
            ChangeReport.code("097B99EB-A817-4BD6-BC65-3EF3C0A0B344"), "`097B99EB-A817-4BD6-BC65-3EF3C0A0B344`")
        XCTAssertEqual(ChangeReport.code("/data/rooms.sqlite"), "`/data/rooms.sqlite`")
        XCTAssertEqual(ChangeReport.code("a`b <c>"), "a\\`b &lt;c&gt;", "not a code span: escaped text")
    }

    func testHostileNamesStayInTheirCellsAsText() {
        var report = ChangeCollector().report()
        report.neverDerived = 1
        report.newRecords = [.init(id: "n1", roomName: HostileText.name, method: "wall_hull")]
        report.newRecordsByMethod = [HostileText.name: 1]
        report.wouldFail = 1
        report.failuresByCode = ["<b>": 1]
        report.failures = [
            .init(
                id: "<i>\n", roomName: HostileText.name, stage: "derive", code: "x|y", message: HostileText.capturedAt)
        ]
        report.bySourceFile = [.init(value: HostileText.fileName, examined: 1)]
        let md = report.markdown()
        HostileText.assertTerminalSafe(md, "preview.md")
        XCTAssertFalse(md.contains("<"), md)
        XCTAssertFalse(md.contains(">"), md)
        XCTAssertFalse(md.contains("[click]("), md)
        let rows = md.split(separator: "\n").map(String.init)
        XCTAssertEqual(rows.filter { $0.hasPrefix("| `n1` |") }.map(HostileText.markdownCellCount), [3])
        XCTAssertEqual(rows.filter { $0.contains("&lt;i&gt;\\u000A") }.map(HostileText.markdownCellCount), [5])
        XCTAssertEqual(rows.filter { $0.contains("FORGED LOG LINE") }.map(HostileText.markdownCellCount), [7])
    }
}
