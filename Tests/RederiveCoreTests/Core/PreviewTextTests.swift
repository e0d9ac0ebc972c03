import XCTest
@testable import RederiveCore

/// Per-record text a preview keeps is cut to `PreviewText.limit` scalars plus a marker.
final class PreviewTextTests: XCTestCase {
    func testPreviewTextIsCutByScalarsWithAMarker() {
        XCTAssertEqual(PreviewText.truncated("short"), "short")
        let exact = String(repeating: "é", count: PreviewText.limit)
        XCTAssertEqual(PreviewText.truncated(exact), exact)
        let long = String(repeating: "\u{1F3E0}", count: PreviewText.limit + 1)
        let cut = PreviewText.truncated(long)
        XCTAssertEqual(cut.unicodeScalars.count, PreviewText.limit + 1)
        XCTAssertTrue(cut.hasSuffix(PreviewText.marker))
        XCTAssertEqual(PreviewText.truncated(cut), cut, "cutting twice changes nothing")
        XCTAssertLessThanOrEqual(exact.utf8.count, PreviewText.readBytes)
    }
}
