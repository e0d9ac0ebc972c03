import XCTest
@testable import RederiveCore

/// The progress line's text and its terminal rules.
final class ProgressLineTests: XCTestCase {
    func testLineShowsSkippedAndElapsedTime() {
        let line = ProgressLine.render(
            label: "import", records: 4500, skipped: 3, bytes: 168_100_000, fraction: 0.25,
            seconds: 65)
        XCTAssertEqual(line, "import: 4500 records, 3 skipped, 69 records/s, 2.6 MB/s, 1:05 elapsed, 25%, ETA 3:15")
        XCTAssertEqual(
            ProgressLine.render(
                label: "derive", records: 10, skipped: 0, bytes: 0, fraction: nil,
                seconds: 3725),
            "derive: 10 records, 0 records/s, 1:02:05 elapsed")
    }

    func testEscapesOnlyForCapableTerminals() {
        XCTAssertTrue(ProgressLine.allowsEscapes(environment: ["TERM": "xterm-256color"]))
        XCTAssertFalse(ProgressLine.allowsEscapes(environment: ["TERM": "dumb"]))
        XCTAssertFalse(ProgressLine.allowsEscapes(environment: ["TERM": "xterm", "NO_COLOR": "1"]))
        XCTAssertFalse(ProgressLine.allowsEscapes(environment: ["NO_COLOR": ""]), "NO_COLOR set to anything")
    }

    func testSuppressedLinesStayDisabled() {
        XCTAssertFalse(ProgressLine.isSuppressed)
        // The old call shape (no skipped:) still compiles, for the jobs.
        let line = ProgressLine(label: "x", enabled: false)
        line.update(records: 1, bytes: 0, fraction: nil)
        line.finish()
    }
}
