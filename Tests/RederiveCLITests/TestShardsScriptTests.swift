import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// `.ci/test-shards` deals the suite's classes to its shards by measured time (issue 36 #20:
/// dealt in turn, one shard took 267 s and the other 165 s): `.ci/test-deal` puts the longest
/// first, each on the lightest shard, a class without a time at the median; and
/// `.ci/test-durations-from-log` reads those times from XCTest's output.
final class TestShardsScriptTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func script(_ name: String, _ arguments: [String], input: String) throws -> String {
        let r = try CommandLineTool.invoke(
            arguments, executable: RoomFixtures.repoRoot.appendingPathComponent(".ci/\(name)").path,
            stdin: Data(input.utf8), scratch: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout
    }

    func testClassesAreDealtByTimeLongestFirstToTheLightestShard() throws {
        let times = try dir.write("# measured\nSlow 100\nMiddle 60\nQuick 10\nTiny 1\nOther 40\n", to: "durations")
        let classes = ["Slow", "Middle", "Quick", "Tiny", "Other", "Unmeasured"].map { "RederiveCoreTests.\($0)" }
        let deal = try script("test-deal", ["2", times], input: classes.joined(separator: "\n") + "\n")
        var shards: [String: [String]] = [:]
        for line in deal.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            shards[fields[0], default: []].append(String(fields[1].dropFirst("RederiveCoreTests.".count)))
        }
        // Unmeasured counts as the median, 40: 100 + 40 against 60 + 40 + 10 + 1.
        XCTAssertEqual(shards["0"], ["Slow", "Unmeasured"], deal)
        XCTAssertEqual(shards["1"], ["Middle", "Other", "Quick", "Tiny"], deal)
        // Dealt in turn (by name), the same classes would have given 71 against 180.
        let none = try script("test-deal", ["2", "/nonexistent"], input: classes.joined(separator: "\n") + "\n")
        XCTAssertEqual(none.split(separator: "\n").count, classes.count, "no times: every class still dealt")
    }

    func testTimesAreReadFromXCTestOutput() throws {
        let log = """
            Test Suite 'Selected tests' started at 2026-11-27 16:38:10.000
            Test Suite 'FaultedFileCommandTests' started at 2026-11-27 16:38:10.696
            Test Case 'FaultedFileCommandTests.testA' passed (3.73 seconds)
            Test Suite 'FaultedFileCommandTests' passed at 2026-11-27 16:38:14.426
            \t Executed 1 test, with 0 failures (0 unexpected) in 3.73 (3.75) seconds
            Test Suite 'NightlyCronCommandTests' failed at 2026-11-27 16:38:16.936
            \t Executed 2 tests, with 1 failure (0 unexpected) in 2.456 (2.461) seconds
            Test Suite 'Selected tests' failed at 2026-11-27 16:38:20.279
            \t Executed 16 tests, with 1 test skipped and 1 failure (0 unexpected) in 9.582 (9.582) seconds

            """
        XCTAssertEqual(
            try script("test-durations-from-log", [], input: log),
            "FaultedFileCommandTests 3.8\nNightlyCronCommandTests 2.5\n")
    }

    /// The committed times name classes the suite has (a renamed class would be dealt blind).
    func testTheCommittedTimesNameExistingClasses() throws {
        let path = RoomFixtures.repoRoot.appendingPathComponent(".ci/test-durations").path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw XCTSkip(".ci/test-durations is not committed yet")
        }
        let tests = RoomFixtures.repoRoot.appendingPathComponent("Tests")  // every test target
        let sources = FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String } ?? []
        var declared = Set<String>()
        for file in sources where file.hasSuffix(".swift") {
            let swift = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            // Every class declared (a test class may derive from a shared base class).
            for line in swift.split(separator: "\n") where line.contains("class ") && line.contains(":") {
                if let name = line.split(separator: " ").drop(while: { $0 != "class" }).dropFirst().first {
                    declared.insert(String(name.prefix { $0 != ":" }))
                }
            }
        }
        let named = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: " ").first.map(String.init)
        }
        XCTAssertFalse(named.isEmpty)
        XCTAssertEqual(Set(named).subtracting(declared), [], "times for classes the suite no longer has")
    }
}
