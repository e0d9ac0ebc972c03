import XCTest
@testable import RederiveCore

/// The `status --check` verdict: a pure function of a `StoreStatus`.
final class StoreStatusCheckTests: XCTestCase {
    private func status(
        stale: StoreStatus.StaleCounts = .init(), failures: [StoreStatus.FailureCount] = [],
        runs: [(Int64, String, RunStatus)] = []
    ) -> StoreStatus {
        StoreStatus(
            path: "s.sqlite", totalRecords: 10, recordsByVersion: [], stale: stale, failures: failures,
            recentRuns: runs.map {
                StoreStatus.RunEntry(
                    id: $0.0, command: $0.1, status: $0.2.rawValue, exitStatus: nil,
                    startedAt: "2026-11-23T00:00:00Z", durationSeconds: nil, read: 0, done: 0,
                    unchanged: 0, skipped: 0, pipeline: nil)
            },
            totalRuns: runs.count, currentVersion: 1, currentFingerprint: "f")
    }

    func testHealthyStoreIsOk() {
        let s = status(runs: [(2, "derive", .completed), (1, "import", .completed)])
        XCTAssertEqual(s.problems(), [])
        XCTAssertEqual(s.checkText(), "ok\n")
        XCTAssertEqual(s.checkExitStatus(), .ok)
    }

    func testEachProblemGetsOneLine() {
        let s = status(
            stale: .init(version: 2, missing: 1),
            failures: [.init(stage: "parse", code: "invalid_json", count: 3)],
            runs: [(3, "export", .completed), (2, "derive", .interrupted), (1, "import", .aborted)])
        XCTAssertEqual(s.problems().map(\.kind), [.staleRecords, .openFailures, .unfinishedRun, .unfinishedRun])
        XCTAssertEqual(s.checkText().split(separator: "\n").count, 4)
        XCTAssertTrue(s.checkText().contains("3 stale records (2 version, 0 fingerprint, 1 missing)"))
        XCTAssertTrue(s.checkText().contains("latest derive run 2 interrupted"))
        XCTAssertTrue(s.checkText().contains("latest import run 1 aborted"))
        XCTAssertEqual(s.checkExitStatus(), StoreStatus.checkAttentionExitStatus)
        XCTAssertEqual(StoreStatus.checkAttentionExitStatus, .needsAttention)
    }

    func testOnlyTheLatestRunOfEachCommandCounts() {
        let s = status(runs: [
            (4, "derive", .completed), (3, "derive", .crashed), (2, "import", .failed),
            (1, "import", .completed),
        ])
        XCTAssertEqual(s.problems().map(\.message.count).count, 1)
        XCTAssertTrue(s.checkText().contains("latest import run 2 failed"))
        XCTAssertEqual(status(runs: [(1, "derive", .running)]).problems(), [], "a running run may be live")
    }

    func testCheckJSON() throws {
        let s = status(failures: [.init(stage: "decode", code: "bad_transform", count: 1)])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(s.checkJSON().utf8)) as? [String: Any])
        XCTAssertEqual(object["ok"] as? Bool, false)
        XCTAssertEqual(object["exitStatus"] as? Int, 5)
        XCTAssertEqual((object["problems"] as? [[String: Any]])?.first?["kind"] as? String, "open_failures")
    }
}
