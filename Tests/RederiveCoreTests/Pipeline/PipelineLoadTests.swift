import Foundation
import XCTest
@testable import RederiveCore

/// Loading pipeline files that are not what they seem (issue 8, points 3 and 14): deep
/// nesting is refused before the YAML parser recurses, a directory is named as one.
final class PipelineLoadTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func loadError(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
        let path = dir.file("p-\(UUID().uuidString).yml")
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        do {
            _ = try PipelineDefinition.load(path: path)
            XCTFail("expected a usage error", file: file, line: line)
        } catch {
            guard case .usage(let message) = error else {
                XCTFail("expected a usage error, got \(error)", file: file, line: line)
                return nil
            }
            return message.replacingOccurrences(of: path, with: "p.yml")
        }
        return nil
    }

    func testDeepFlowNestingIsAUsageErrorWithItsLine() throws {
        // The crash: ~10 KB, nested 5,000 levels (stack overflow in the YAML parser).
        let text =
            "version: 1\nstages:\n  - derive: " + String(repeating: "[", count: 5_000)
            + String(repeating: "]", count: 5_000) + "\n"
        let message = try XCTUnwrap(loadError(text))
        XCTAssertTrue(message.hasPrefix("p.yml:3: nested deeper than 64 levels"), message)
    }

    func testDeepBlockNestingIsAUsageErrorWithItsLine() throws {
        var text = "version: 1\nstages:\n"
        for depth in 0..<5_000 { text += String(repeating: " ", count: depth) + "k\(depth):\n" }
        XCTAssertTrue(try XCTUnwrap(loadError(text)).hasPrefix("p.yml:"))
        let dashes = "version: 1\nstages:\n" + String(repeating: "- ", count: 5_000) + "x\n"
        XCTAssertTrue(try XCTUnwrap(loadError(dashes)).hasPrefix("p.yml:3: nested deeper"))
        let multiline =
            "version: 1\nstages:\n" + String(repeating: "[\n", count: 100) + String(repeating: "]\n", count: 100)
        XCTAssertTrue(try XCTUnwrap(loadError(multiline)).hasPrefix("p.yml:"))
    }

    func testShippedPipelinesAndOrdinaryNestingLoad() throws {
        for name in ["demo", "nightly", "backfill"] {
            let path = RoomFixtures.repoRoot.appendingPathComponent("Pipelines/\(name).yml").path
            XCTAssertNoThrow(try PipelineDefinition.load(path: path), name)
        }
        XCTAssertNil(
            YAMLNestingCheck.firstTooDeepLine(String(repeating: "[", count: 63) + String(repeating: "]", count: 63)))
        // Brackets in quotes and comments open nothing.
        XCTAssertNil(
            YAMLNestingCheck.firstTooDeepLine(
                "name: \"" + String(repeating: "[", count: 100) + "\" # " + String(repeating: "{", count: 100)))
    }

    func testDirectoryIsNamedAsOne() throws {
        do {
            _ = try PipelineDefinition.load(path: dir.path)
            XCTFail("expected an error")
        } catch {
            guard case .usage(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.hasSuffix("is a directory, not a pipeline file"), message)
            XCTAssertFalse(message.contains("NSCocoaErrorDomain"), message)
        }
    }
}
