import XCTest

@testable import RederiveCore

/// How long a claiming process waits before asking again for a range (`RangeWait.pause`).
final class RangeWaitTests: XCTestCase {
    func testThePauseStartsShortAndDoublesToHalfASecond() {
        let wait = RangeWait(seconds: 40)
        XCTAssertEqual((0..<7).map { wait.pause(afterWaits: $0) }, [0.05, 0.1, 0.2, 0.4, 0.5, 0.5, 0.5])
        XCTAssertEqual(wait.pause(afterWaits: 10_000), 0.5, "no overflow after a long wait")
    }

    func testThePauseNeverOutlastsTheFirstLeaseToRunOut() {
        XCTAssertEqual(RangeWait(seconds: 0.15).pause(afterWaits: 3), 0.15)
        XCTAssertEqual(RangeWait(seconds: 0.15).pause(afterWaits: 0), 0.05)
        XCTAssertEqual(RangeWait(seconds: -3).pause(afterWaits: 5), 0.05, "a lease already out: ask again soon")
    }
}
