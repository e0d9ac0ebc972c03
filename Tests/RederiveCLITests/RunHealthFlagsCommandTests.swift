import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport

/// `rederive run` and a derive stage's health keys (issue 34): the stage's `throttle` and
/// `health-limit` reach the run, a flag of the same name wins over them, and a bad flag stops
/// the pipeline before it writes anything.
final class RunHealthFlagsCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    /// Observes with a red limit of 0 s waited for locks: every read is "red", so observe mode
    /// says "would wait" and changes nothing.
    private func pipeline() throws -> String {
        let path = dir.file("p.yml")
        let exports = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/exports/rooms-v2.jsonl").path
        try """
        version: 1
        stages:
          - import: { paths: [\(exports)] }
          - derive:
              all: true
              batch-size: 5
              throttle: observe
              health-limit: { lock_wait_seconds: [0, 0] }
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testTheStagesKeysReachTheRunAndAFlagWinsOverThem() throws {
        let observed = try rederive(["run", try pipeline(), "--db", dir.file("a.sqlite")])
        XCTAssertEqual(observed.status, 0, observed.stderr)
        XCTAssertTrue(observed.stderr.contains("would wait: time waited for locks 0.0 s >= red 0.0 s"), observed.stderr)

        let off = try rederive(["run", try pipeline(), "--db", dir.file("b.sqlite"), "--throttle", "off"])
        XCTAssertEqual(off.status, 0, off.stderr)
        XCTAssertFalse(off.stderr.contains("would wait"), off.stderr)

        let raised = try rederive([
            "run", try pipeline(), "--db", dir.file("c.sqlite"), "--health-limit", "lock_wait_seconds=5,10",
        ])
        XCTAssertEqual(raised.status, 0, raised.stderr)
        XCTAssertFalse(raised.stderr.contains("would wait"), "the flag's limit over the file's: \(raised.stderr)")
    }

    func testABadFlagStopsThePipelineBeforeItWrites() throws {
        let store = dir.file("d.sqlite")
        let r = try rederive(["run", try pipeline(), "--db", store, "--health-limit", "nope=1,2"])
        XCTAssertEqual(r.status, ExitStatus.usage.rawValue, r.stderr)
        XCTAssertTrue(r.stderr.contains("unknown signal nope"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store), "nothing written")
    }
}
