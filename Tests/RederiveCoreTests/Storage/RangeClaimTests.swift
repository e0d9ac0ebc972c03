import XCTest

@testable import RederiveCore

/// How a claimed range is cut for sized batches (`--batch-seconds`): pieces as close to the size
/// asked as whole pieces get, over or under, never a sliver.
final class RangeClaimTests: XCTestCase {
    func testPiecesComeClosestToTheSizeAsked() {
        XCTAssertEqual(RangeClaim.pieces(holding: 1000, size: 400), 3, "334s, not 400, 400 and a sliver of 200")
        XCTAssertEqual(RangeClaim.pieces(holding: 1000, size: 450), 2, "500s (+11 %), not 334s (-26 %)")
        XCTAssertEqual(RangeClaim.pieces(holding: 1000, size: 333), 3)
        XCTAssertEqual(RangeClaim.pieces(holding: 1000, size: 250), 4)
        XCTAssertEqual(RangeClaim.pieces(holding: 1000, size: 999), 1, "a little over stays whole")
        XCTAssertEqual(RangeClaim.pieces(holding: 1000, size: 700), 2, "500s (-29 %), not 1000 (+43 %)")
        XCTAssertEqual(RangeClaim.pieces(holding: 1000, size: 1000), 1)
        XCTAssertEqual(RangeClaim.pieces(holding: 10, size: 50), 1, "holds fewer than asked")
        XCTAssertEqual(RangeClaim.pieces(holding: 10, size: 0), 1)
    }

    func testNoPieceIsMoreThanAThirdOffTheSizeAsked() {
        for size in 1...60 {
            for held in size...400 {
                let pieces = RangeClaim.pieces(holding: held, size: size)
                let largest = Double((held + pieces - 1) / pieces)
                let smallest = Double(held / pieces)
                XCTAssertLessThanOrEqual(largest, Double(size) * 4 / 3 + 1, "\(held) in \(size)s")
                XCTAssertGreaterThanOrEqual(smallest, Double(size) * 2 / 3 - 1, "\(held) in \(size)s")
            }
        }
    }
}
