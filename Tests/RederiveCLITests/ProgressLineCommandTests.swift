import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// The progress line as a terminal sees it: run under `script`, which gives the tool a pty.
final class ProgressLineCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            throw XCTSkip("needs util-linux's script to give rederive a terminal")
        }
    }

    override func tearDown() { dir = nil }

    /// Everything the terminal received (stdout and stderr together).
    private func onTerminal(_ arguments: [String], environment: [String: String]) throws -> String {
        // The test runner's own NO_COLOR / TERM must not leak in: the environment is set here only.
        let settings = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let command =
            (["env", "-u", "NO_COLOR", "-u", "TERM"] + settings + [try CommandLineTool.executable()] + arguments)
            .map { "'\($0)'" }.joined(separator: " ")
        let r = try CommandLineTool.invoke(["-qec", command, "/dev/null"], executable: "/usr/bin/script", scratch: dir)
        XCTAssertTrue([0, 3].contains(r.status), "\(arguments): \(r.status) \(r.stdout)")
        return r.stdout
    }

    private func importFixtures(_ extra: [String] = [], environment: [String: String]) throws -> String {
        try onTerminal(
            ["import", "Fixtures", "--db", dir.file("\(UUID().uuidString).sqlite"), "--batch-size", "5"]
                + extra, environment: environment)
    }

    func testProgressShowsSkippedAndElapsedOnATerminal() throws {
        let text = try importFixtures(environment: ["TERM": "xterm"])
        XCTAssertTrue(text.contains("\rimport: "), text)
        XCTAssertTrue(text.contains(" skipped, "), "skipped records counted as the run goes: \(text)")
        XCTAssertTrue(text.contains(" elapsed"), text)
        XCTAssertTrue(text.contains("\u{1B}[K"), "a capable terminal gets its line cleared")
    }

    func testDumbTerminalsAndNoColorGetNoEscapeSequences() throws {
        for environment in [["TERM": "dumb"], ["TERM": "xterm", "NO_COLOR": "1"]] {
            let text = try importFixtures(environment: environment)
            XCTAssertTrue(text.contains("\rimport: "), "still a progress line: \(text)")
            XCTAssertFalse(text.contains("\u{1B}"), "\(environment): no escape sequence")
        }
    }

    func testQuietShowsNoProgressLine() throws {
        let text = try importFixtures(["--quiet"], environment: ["TERM": "xterm"])
        XCTAssertFalse(text.contains("import: "), text)
        XCTAssertFalse(text.contains("\u{1B}"), text.debugDescription)
    }

    func testGenerateShowsProgress() throws {
        let out = dir.file("g.jsonl")
        let text = try onTerminal(["generate", "--out", out, "--records", "20"], environment: ["TERM": "xterm"])
        XCTAssertTrue(text.contains("\rgenerate: "), text)
        let quiet = try onTerminal(["generate", "--out", out, "--records", "20", "-q"], environment: ["TERM": "xterm"])
        XCTAssertFalse(quiet.contains("generate: "), quiet)
    }
}
