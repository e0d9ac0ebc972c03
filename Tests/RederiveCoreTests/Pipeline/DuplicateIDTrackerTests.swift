import XCTest
@testable import RederiveCore

final class DuplicateIDTrackerTests: XCTestCase {
    func testFirstIsKeptRepeatsAreIssuesPerFile() throws {
        var tracker = DuplicateIDTracker()
        tracker.enter(file: "a.jsonl")
        XCTAssertNil(tracker.check(id: "X", line: 1))
        XCTAssertNil(tracker.check(id: "Y", line: 2))
        let issue = try XCTUnwrap(tracker.check(id: "X", line: 7))
        XCTAssertEqual(issue.file, "a.jsonl")
        XCTAssertEqual(issue.line, 7)
        XCTAssertEqual(issue.id, "X")
        XCTAssertEqual(issue.stage, .upgrade)
        XCTAssertEqual(issue.code, "duplicate_id")
        XCTAssertTrue(issue.message.contains("line 1"))
        tracker.enter(file: "a.jsonl")
        XCTAssertNotNil(tracker.check(id: "Y", line: 9), "same file: still remembered")
        tracker.enter(file: "b.jsonl")
        XCTAssertNil(tracker.check(id: "X", line: 1), "the same id in another export is not a duplicate")
    }
}
