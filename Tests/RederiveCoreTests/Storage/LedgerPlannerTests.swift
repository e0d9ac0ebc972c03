import XCTest

@testable import RederiveCore

/// `LedgerPlanner` without a database: keys, what a batch clears and keeps, and which
/// failures are new.
final class LedgerPlannerTests: XCTestCase {
    private func issue(_ line: Int?, id: String? = nil, code: IssueCode = .invalidJSON) -> RecordIssue {
        RecordIssue(file: "a.jsonl", line: line, id: id, stage: .parse, code: code, message: "m")
    }

    func testKeys() {
        XCTAssertEqual(LedgerPlanner.key(for: issue(3, id: "X")), "id:X")
        XCTAssertEqual(LedgerPlanner.key(for: issue(3, id: "X", code: .duplicateID)), "line:a.jsonl:3")
        XCTAssertEqual(LedgerPlanner.key(for: issue(4)), "line:a.jsonl:4")
        XCTAssertEqual(LedgerPlanner.key(for: issue(nil)), "file:a.jsonl")
        XCTAssertEqual(LedgerPlanner.clearedKeys(id: "X", file: "a.jsonl", line: 2), ["id:X", "line:a.jsonl:2"])
        XCTAssertEqual(LedgerPlanner.clearedKeys(id: "X", file: nil, line: nil), ["id:X"])
    }

    func testSuccessClearsUnlessALaterFailureKeepsTheKey() {
        var planner = LedgerPlanner()
        planner.succeeded(id: "X", file: "a.jsonl", line: 2)
        planner.succeeded(id: "Y", file: "a.jsonl", line: 4)
        planner.failed(issue(4))  // line 4 fails after its success: kept
        let plan = planner.plan(openCodes: [:])
        XCTAssertEqual(plan.cleared, ["id:X", "id:Y", "line:a.jsonl:2"])
        XCTAssertEqual(plan.upserts.map(\.key), ["line:a.jsonl:4"])
    }

    func testAFailureBeforeASuccessOfTheSameKeyIsCleared() {
        var planner = LedgerPlanner()
        planner.failed(issue(2))
        planner.succeeded(id: "X", file: "a.jsonl", line: 2)
        let plan = planner.plan(openCodes: [:])
        XCTAssertEqual(plan.upserts.map(\.key), ["line:a.jsonl:2"], "written, then deleted at the end")
        XCTAssertTrue(plan.cleared.contains("line:a.jsonl:2"))
    }

    func testNewUnlessOpenWithTheSameCode() {
        var planner = LedgerPlanner()
        planner.failed(issue(1))
        planner.failed(issue(2))
        planner.failed(issue(3, code: .wrongType))
        planner.failed(issue(5))
        planner.failed(issue(5))  // twice in the batch: new once
        XCTAssertEqual(planner.failureKeys.count, 5)
        let plan = planner.plan(openCodes: ["line:a.jsonl:1": "invalid_json", "line:a.jsonl:3": "invalid_json"])
        // 1 already open with its code; 2 new; 3 open with another code: new; 5 new once.
        XCTAssertEqual(plan.newFailures, 3)
        XCTAssertEqual(plan.upserts.count, 5)
        XCTAssertEqual(plan.cleared, [])
    }
}
