import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// `StoreStatus.renderers`: every format `status` writes is one entry, and each is checked
/// here against the security review's hostile text and for a bounded size (a new format fails
/// `testEveryFormatHasItsHostileTextCheck` until its check is added).
final class StoreStatusRendererTests: XCTestCase {
    /// A status whose every text field is hostile, with many runs and batches.
    private func hostileStatus() -> StoreStatus {
        var status = StoreStatus(
            path: "/x/" + HostileText.name + ".sqlite", totalRecords: 10,
            recordsByVersion: [.init(summaryVersion: 1, records: 7), .init(summaryVersion: nil, records: 3)],
            stale: .init(version: 1, fingerprint: 1, missing: 3),
            failures: [.init(stage: "derive", code: HostileText.name, count: 2)],
            recentRuns: (1...60).map {
                .init(
                    id: Int64($0), command: "derive", status: "done", exitStatus: 0, startedAt: HostileText.capturedAt,
                    durationSeconds: 1.5, read: 10, done: 5, unchanged: 5, skipped: 0, pipeline: HostileText.name)
            }, totalRuns: 60, currentVersion: 1, currentFingerprint: "v1-0")
        status.deriveRanges = .init(
            runID: 60, open: 1, claimed: 1, done: 1, failed: 1, claimedBy: [HostileText.name: 1])
        status.latestBatchRun = 60
        status.latestBatches = (1...5_000).map {
            BatchRecord(runID: 60, worker: HostileText.name, records: $0, readSeconds: 0.01)
        }
        return status
    }

    func testEveryFormatHasItsHostileTextCheck() throws {
        let status = hostileStatus()
        XCTAssertEqual(
            StoreStatus.renderers.map(\.format).sorted(), ["html", "json", "text"],
            "a new status format needs its hostile-text check below")
        for renderer in StoreStatus.renderers {
            let text = renderer.render(status)
            switch renderer.format {
            case StoreStatus.Format.text:
                HostileText.assertTerminalSafe(text, "status text")
            case StoreStatus.Format.json:
                let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                XCTAssertEqual(object["store"] as? String, status.path, "the JSON keeps the text exactly")
                XCTAssertTrue(text.hasSuffix("}\n"))
            case StoreStatus.Format.html:
                XCTAssertNoThrow(try XHTML.parse(text), "status html is well-formed XML")
                XCTAssertFalse(text.contains("<script"))
                XCTAssertFalse(text.contains(HostileText.esc))
            default:
                XCTFail("no hostile-text check for \(renderer.format)")
            }
        }
    }

    /// Thousands of batches and dozens of runs do not grow any format without bound.
    func testEveryFormatIsBounded() {
        let status = hostileStatus()
        for renderer in StoreStatus.renderers {
            XCTAssertLessThan(renderer.render(status).utf8.count, 1_000_000, renderer.format)
        }
    }

    /// The command's outputs are the renderers' texts: `status`'s lines, `--json`'s object
    /// and a newline, `--html`'s page as `writeHTML` writes it.
    func testRenderersAreTheFormatsAsWritten() throws {
        let status = hostileStatus()
        XCTAssertEqual(status.rendered(StoreStatus.Format.text), status.text())
        XCTAssertEqual(status.rendered(StoreStatus.Format.json), status.json() + "\n")
        let dir = try TemporaryDirectory()
        try status.writeHTML(to: dir.file("status.html"))
        XCTAssertEqual(try String(contentsOfFile: dir.file("status.html"), encoding: .utf8), status.html())
    }
}
