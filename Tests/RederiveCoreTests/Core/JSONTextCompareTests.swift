import XCTest

@testable import RederiveCore

/// `JSONText.sameBytes` decides whether a derive rewrites a summary: it must be exact.
final class JSONTextCompareTests: XCTestCase {
    func testSameBytesIsExactByteEquality() {
        XCTAssertTrue(JSONText.sameBytes("", []))
        XCTAssertTrue(JSONText.sameBytes(#"{"a":1}"#, Array(#"{"a":1}"#.utf8)))
        XCTAssertTrue(JSONText.sameBytes("Küche ✓", Array("Küche ✓".utf8)))
        XCTAssertFalse(JSONText.sameBytes(#"{"a":1}"#, Array(#"{"a":2}"#.utf8)))
        XCTAssertFalse(JSONText.sameBytes(#"{"a":1}"#, Array(#"{"a":10}"#.utf8)))
        XCTAssertFalse(JSONText.sameBytes("", [0x20]))
        XCTAssertFalse(JSONText.sameBytes(" ", []))
        // A bridged or non-contiguous string is compared by its UTF-8 too.
        let built = String(repeating: "é", count: 1000)
        XCTAssertTrue(JSONText.sameBytes(built, Array(built.utf8)))
        XCTAssertFalse(JSONText.sameBytes(built, Array(built.utf8.dropLast())))
    }
}
