import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

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
        // 1,000 levels (under the 1 MiB size limit): the mapping holding k64 is level 65, line 67.
        var text = "version: 1\nstages:\n"
        for depth in 0..<1_000 { text += String(repeating: " ", count: depth) + "k\(depth):\n" }
        XCTAssertEqual(
            try XCTUnwrap(loadError(text)), "p.yml:67: nested deeper than 64 levels; a pipeline file needs 5")
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
            YAMLStructureCheck.firstProblem(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)))
        XCTAssertEqual(
            YAMLStructureCheck.firstProblem(String(repeating: "[", count: 65) + String(repeating: "]", count: 65)),
            .tooDeep(line: 1))
        // Brackets in quotes, block scalars and comments open nothing.
        XCTAssertNil(
            YAMLStructureCheck.firstProblem(
                "name: \"" + String(repeating: "[", count: 100) + "\" # " + String(repeating: "{", count: 100)))
        XCTAssertNil(
            YAMLStructureCheck.firstProblem("name: |\n  " + String(repeating: "[", count: 100) + "\nversion: 1\n"))
    }

    // MARK: Issue 22, F14: the depth guard counts what the parser counts

    /// The review's files: an apostrophe or a `"` inside a plain scalar, or CR-only line
    /// breaks, hid 20,000 levels from the old text scan, and Yams overflowed the stack.
    func testQuotesInPlainScalarsAndCROnlyLinesDoNotHideDeepNesting() throws {
        let deep = String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000)
        let head = "version: 1\nname: p\nstages:\n  - derive: {}\n"
        let expected = "p.yml:5: nested deeper than 64 levels; a pipeline file needs 5"
        XCTAssertEqual(try XCTUnwrap(loadError(head + "x: [it's, \(deep)]\n")), expected)
        XCTAssertEqual(try XCTUnwrap(loadError(head + "x: [a\"b, \(deep)]\n")), expected)
        XCTAssertEqual(try XCTUnwrap(loadError(head + "x: [a, b's \"c\", \(deep)]\n")), expected)
        let crOnly = head.replacingOccurrences(of: "\n", with: "\r") + "x: [\(deep)]\r"
        XCTAssertEqual(try XCTUnwrap(loadError(crOnly)), expected)
        let crlf = head.replacingOccurrences(of: "\n", with: "\r\n") + "x: [it's, \(deep)]\r\n"
        XCTAssertEqual(try XCTUnwrap(loadError(crlf)), expected)
        // A comment character, a block scalar and a quoted multi-line string before it hide nothing either.
        let tricky = "version: 1\nname: 'a #\n  b'\nnote: |\n  it's [\nx: " + deep + "\n"
        XCTAssertEqual(
            try XCTUnwrap(loadError(tricky)), "p.yml:6: nested deeper than 64 levels; a pipeline file needs 5")
    }

    // MARK: Issue 22, F15: duplicate keys

    func testDuplicateKeysAreErrorsWithBothLinesAtAnyLevel() throws {
        let top = "version: 1\nname: p\nstore: a.sqlite\nstore: b.sqlite\nstages:\n  - derive: {}\n"
        XCTAssertEqual(
            try XCTUnwrap(loadError(top)),
            "p.yml:4: duplicate key \"store\" (first on line 3); readers disagree on which one counts, "
                + "so neither is taken")
        let flow = "version: 1\nname: p\nstages:\n  - derive: {max-changes: 0, max-changes: 100%}\n"
        XCTAssertTrue(
            try XCTUnwrap(loadError(flow)).hasPrefix("p.yml:4: duplicate key \"max-changes\" (first on line 4)"))
        let block = "version: 1\nname: p\nstages:\n  - derive:\n      max-changes: 0\n      \"max-changes\": 100%\n"
        XCTAssertTrue(
            try XCTUnwrap(loadError(block)).hasPrefix("p.yml:6: duplicate key \"max-changes\" (first on line 5)"))
        let deeper = "version: 1\nname: p\nstages:\n  - import: {paths: [{a: 1, a: 2}]}\n"
        XCTAssertTrue(try XCTUnwrap(loadError(deeper)).hasPrefix("p.yml:4: duplicate key \"a\""))
        let stages = "version: 1\nstages:\n  - derive: {}\nname: p\nstages:\n  - export: {out: x.jsonl}\n"
        XCTAssertTrue(try XCTUnwrap(loadError(stages)).hasPrefix("p.yml:5: duplicate key \"stages\" (first on line 2)"))
    }

    func testTheSameKeyInDifferentMappingsIsFine() throws {
        let path = dir.file("ok.yml")
        let text =
            "version: 1\nname: p\nstages:\n  - import: {paths: [a], report: r1.jsonl}\n"
            + "  - derive: {report: r2.jsonl, workers: 2}\n  - derive: {report: r3.jsonl}\n"
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        XCTAssertEqual(try PipelineDefinition.load(path: path).stages.count, 3)
        XCTAssertEqual(
            YAMLStructureCheck.firstProblem("a: &x {k: 1}\nb: *x\nc: [*x, *x]\n"), nil, "aliases repeat no key")
    }

    // MARK: Issue 19, point 3: a size limit before parsing

    func testPipelineFileOverOneMiBIsRefusedWithItsSize() throws {
        // The 50 MB comment (sparse: the test writes no 50 MB).
        let path = dir.file("big.yml")
        FileManager.default.createFile(atPath: path, contents: Data("version: 1\n# ".utf8))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 50 * 1_048_576)
        try handle.close()
        XCTAssertThrowsError(try PipelineDefinition.load(path: path)) { error in
            XCTAssertEqual(
                "\(error)",
                "\(path): the pipeline file is 52428800 bytes; a pipeline file may be at most 1048576 bytes (1 MiB)")
        }
        // Exactly the limit is read and parsed (a comment pads it).
        let head = "version: 1\nname: p\nstages:\n  - derive: {}\n# "
        let exact = head + String(repeating: "x", count: PipelineDefinition.maxFileSize - head.utf8.count)
        FileManager.default.createFile(atPath: path, contents: Data(exact.utf8))
        XCTAssertEqual(try PipelineDefinition.load(path: path).stages.count, 1)
        FileManager.default.createFile(atPath: path, contents: Data((exact + "x").utf8))
        XCTAssertTrue(
            try XCTUnwrap(loadError(exact + "x")).hasSuffix(
                "is 1048577 bytes; a pipeline file may be at most 1048576 bytes (1 MiB)"))
    }

    /// An endless file (here /dev/zero) ends after the limit: at most limit + 1 bytes are read.
    func testEndlessPipelineFileIsReadOnlyUpToTheLimit() throws {
        XCTAssertThrowsError(try PipelineDefinition.load(path: "/dev/zero")) { error in
            XCTAssertEqual(
                "\(error)",
                "/dev/zero: the pipeline file is more than 1048576 bytes; a pipeline file may be at most 1048576 "
                    + "bytes (1 MiB)")
        }
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
