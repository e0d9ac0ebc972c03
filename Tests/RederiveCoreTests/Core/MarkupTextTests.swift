import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// S13 (security review 2026-11-27): no bidi control reorders a document's text and no
/// noncharacter reaches one: SVG drawings, HTML reports and `preview.md` alike.
final class MarkupTextTests: XCTestCase {
    /// Every bidi control, U+202A-U+202E and U+2066-U+2069.
    private let bidi = (Array(0x202A...0x202E) + Array(0x2066...0x2069)).map { Unicode.Scalar(UInt32($0))! }
    /// Noncharacters (Swift literals refuse most: built from their values).
    private let noncharacters = [0xFDD0, 0xFDEF, 0xFFFE, 0xFFFF, 0x1_FFFE, 0x10_FFFF].map {
        Unicode.Scalar(UInt32($0))!
    }

    private func scalars(_ text: String) -> Set<UInt32> { Set(text.unicodeScalars.map(\.value)) }

    func testMarkupDropsBidiControlsAndNoncharacters() throws {
        let name = "Kitchen " + (bidi + noncharacters).map { String($0) + "x" }.joined() + " 12.5 m²"
        let escapers: [(String, (String) -> String)] = [
            ("SVG", RoomDrawingPlan.text), ("HTML", HTMLDocument.escape), ("MarkupText", MarkupText.escaped),
        ]
        for (what, escape) in escapers {
            let out = escape(name)
            XCTAssertTrue(scalars(out).isDisjoint(with: (bidi + noncharacters).map(\.value)), what)
            XCTAssertEqual(
                out, "Kitchen " + String(repeating: "x", count: bidi.count + noncharacters.count) + " 12.5 m²")
        }
        // Neighbours stay, and control characters are replaced visibly, in both documents alike.
        let around = "\u{2029}\u{202F}\u{2065}\u{206A}\u{FFFD}\u{FDCF}\u{FDF0}"
        XCTAssertEqual(MarkupText.escaped(around), around)
        XCTAssertEqual(RoomDrawingPlan.text("<a>\u{1B}\u{9B}\u{7F}\t"), "&lt;a&gt;\u{FFFD}\u{FFFD}\u{FFFD}\t")
        XCTAssertEqual(HTMLDocument.escape("<a>\u{1B}\u{9B}\u{7F}\t"), "&lt;a&gt;\u{FFFD}\u{FFFD}\u{FFFD}\t")
    }

    func testMarkdownEscapesBidiControlsAndDropsNoncharacters() {
        let name = "a" + String(bidi[4]) + "b" + noncharacters.map(String.init).joined() + "c"
        XCTAssertEqual(ChangeReport.cell(name), "a\\u202Ebc")
        XCTAssertTrue(scalars(ChangeReport.cell(name)).isDisjoint(with: noncharacters.map(\.value)))
    }

    /// A drawing and a preview of a record named with an override and U+FFFE keep neither.
    func testDrawingsAndPreviewsKeepNoOverride() throws {
        let name = "\u{202E}evil\u{2066}" + String(noncharacters[2]) + "name"
        let svg = RoomDrawing.svg(try RoomFixtures.load("Bedroom3"), title: name, subtitle: name)
        XCTAssertTrue(scalars(svg).isDisjoint(with: (bidi + noncharacters).map(\.value)), "svg")
        XCTAssertTrue(svg.contains("evilname"), svg)
        var report = ChangeCollector(changeListDirectory: nil).report()
        report.neverDerived = 1
        report.newRecords = [.init(id: "n1", roomName: name, method: "wall_hull")]
        report.newRecordsByMethod = ["wall_hull": 1]
        for (what, text) in [("html", report.html()), ("md", report.markdown())] {
            XCTAssertTrue(scalars(text).isDisjoint(with: [0x202E, 0x2066, 0xFFFE]), what)
            XCTAssertTrue(text.contains("evil"), what)
        }
    }
}
