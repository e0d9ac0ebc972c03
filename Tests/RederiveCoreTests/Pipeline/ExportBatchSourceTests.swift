import Foundation
import XCTest

@testable import RederiveCore
@testable import RederiveTestSupport

/// `ExportBatchSource`: with `sized` (an import under `--batch-seconds`) the second batch is read
/// at the size given after the first, not at the first's size while the first is worked on.
final class ExportBatchSourceTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    /// An export of `count` short lines.
    private func export(_ count: Int) throws -> String {
        let path = dir.file("lines.jsonl")
        let text = (0..<count).map { "{\"n\":\($0)}\n" }.joined()
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testASizedSourceReadsItsSecondBatchAtTheSizeGivenAfterTheFirst() throws {
        let source = ExportBatchSource(files: [try export(100)], maxLines: 40, sized: true)
        defer { source.cancel() }
        XCTAssertEqual(source.next()?.lines.count, 40, "the first batch is maxLines")
        // Time for a reader that reads ahead to have read the second at 40 already.
        Thread.sleep(forTimeInterval: 0.2)
        source.resize(maxLines: 7)
        XCTAssertEqual(source.next()?.lines.count, 7, "the second is read at the size given")
        XCTAssertEqual(source.next()?.lines.count, 7)
    }

    func testAnUnsizedSourceReadsAheadWithoutWaiting() throws {
        let source = ExportBatchSource(files: [try export(100)], maxLines: 40)
        defer { source.cancel() }
        let counts = Array(sequence(state: source) { $0.next() }.map(\.lines.count))
        XCTAssertEqual(counts, [40, 40, 20, 0], "never resized, it never waits for a size")
    }

    func testCancelEndsASizedSourceWaitingForItsSize() throws {
        let source = ExportBatchSource(files: [try export(100)], maxLines: 40, prefetch: 1, sized: true)
        XCTAssertEqual(source.next()?.lines.count, 40)
        source.cancel()
        XCTAssertNil(source.next(), "the reader stopped waiting and ended")
    }
}
