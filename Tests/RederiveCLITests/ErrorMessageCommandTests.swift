import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// Error messages that name the actual mistake.
final class ErrorMessageCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    func testUnknownOptionIsNamedBeforeAMissingOne() throws {
        let r = try rederive(["import", "Fixtures/exports", "--dbb", dir.file("x.sqlite")])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.hasPrefix("Error: Unknown option '--dbb'. Did you mean '--db'?"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("x.sqlite")))
        let plain = try rederive(["status", "--db", dir.file("x.sqlite"), "--jsn"])
        XCTAssertTrue(plain.stderr.contains("Unknown option '--jsn'"), plain.stderr)
        let missing = try rederive(["import", "Fixtures/exports"])
        XCTAssertTrue(missing.stderr.hasPrefix("Error: Missing expected argument '--db <db>'"), missing.stderr)
    }

    /// Known names come from the parser's own model of the command, not from its help text:
    /// `history`'s help mentions `--batch-size` (in prose) but `history` takes no such option.
    func testAnOptionOnlyMentionedInHelpIsStillUnknown() throws {
        let r = try rederive(["history", "--batch-size", "5"])
        XCTAssertEqual(r.status, ExitStatus.usage.rawValue)
        XCTAssertTrue(r.stderr.hasPrefix("Error: Unknown option '--batch-size'."), r.stderr)
        // Hidden and short names are known too: `-q` with a mistyped long option still names the latter.
        let short = try rederive(["status", "-q", "--dbb", dir.file("x.sqlite")])
        XCTAssertTrue(short.stderr.hasPrefix("Error: Unknown option '--dbb'. Did you mean '--db'?"), short.stderr)
    }

    func testNegativeNumbersReachValidation() throws {
        let db = dir.file("x.sqlite")
        let cases: [([String], String)] = [
            (["import", "Fixtures/exports", "--db", db, "--batch-size", "-1"], "--batch-size must be at least 1"),
            (["derive", "--db", db, "--max-errors", "-3"], "--max-errors must not be negative"),
            (["derive", "--db", db, "--workers", "-2"], "--workers must be at least 1"),
            (["status", "--db", db, "--runs", "-1"], "--runs must not be negative"),
            (["run", "Pipelines/demo.yml", "--batch-size", "-1"], "--batch-size must be at least 1"),
            (["summarize", "Fixtures/exports", "--workers", "-1"], "--workers must be at least 1"),
        ]
        for (arguments, message) in cases {
            let r = try rederive(arguments)
            XCTAssertEqual(r.status, 1, "\(arguments)")
            XCTAssertTrue(r.stderr.contains(message), "\(arguments): \(r.stderr)")
        }
    }

    func testADirectoryGivenAsTheStoreIsNamedSo() throws {
        for command in [["status"], ["failures"], ["show", "X"], ["derive", "--dry-run"]] {
            let r = try rederive(command + ["--db", dir.path])
            XCTAssertEqual(r.status, 1, "\(command)")
            XCTAssertTrue(r.stderr.contains("\(dir.path): is a directory, not a store file"), "\(command): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("disk I/O error"), r.stderr)
        }
    }

    func testAnExportGivenAsAPipelineIsNotEchoedWhole() throws {
        let r = try rederive(["run", "Fixtures/exports/rooms-v2.jsonl"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("not valid YAML"), r.stderr)
        XCTAssertLessThan(r.stderr.utf8.count, 600, "the 12 KB line is cut: \(r.stderr.utf8.count) bytes")
    }

    func testImportSaysWhenItCreatesAStore() throws {
        let db = dir.file("typo/rooms.sqlite")
        // A missing folder is a typo (StoreFolderCommandTests) unless --create-dirs.
        XCTAssertEqual(try rederive(["import", "Fixtures/exports/rooms-v2.jsonl", "--db", db]).status, 1)
        let first = try rederive(["import", "Fixtures/exports/rooms-v2.jsonl", "--db", db, "--create-dirs"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stderr.contains("notice  creating a new store at \(db)"), first.stderr)
        let second = try rederive(["import", "Fixtures/exports/rooms-v2.jsonl", "--db", db])
        XCTAssertFalse(second.stderr.contains("creating a new store"), second.stderr)
    }
}
