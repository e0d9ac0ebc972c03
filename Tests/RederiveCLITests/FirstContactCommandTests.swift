import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// What a new user meets first (review rows #16, #17, #18): a short line about ignored
/// files, `generate` from any directory, a mistyped subcommand named as such.
final class FirstContactCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }

    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String], in directory: URL = RoomFixtures.repoRoot) throws -> CommandLineResult
    {
        try CommandLineTool.invoke(arguments, directory: directory, scratch: dir)
    }

    /// #16: importing `Fixtures/` (README, drawings, fuzz corpus beside the exports) warns in
    /// one short line with a count; `--verbose` lists the files.
    func testIgnoredFilesAreOneShortLineWithACount() throws {
        let r = try rederive(["import", "Fixtures", "--db", dir.file("a.sqlite")])
        XCTAssertEqual(r.status, 3, r.stderr)
        let warning = try XCTUnwrap(r.stderr.split(separator: "\n").first { $0.contains("that are not exports") })
        XCTAssertTrue(warning.contains("without an export name: `--verbose` lists them"), String(warning))
        XCTAssertLessThan(warning.count, 200, String(warning))
        XCTAssertFalse(r.stderr.contains("fuzz-corpus"), r.stderr)
        let verbose = try rederive(["import", "Fixtures", "--db", dir.file("b.sqlite"), "--verbose"])
        XCTAssertTrue(verbose.stderr.contains("Fixtures/fuzz-corpus/bad-base64 (not an export name"), verbose.stderr)
    }

    /// `make run`'s demo pipeline reads the fixture exports only: its first screen is no warning
    /// about the drawings, rooms and fuzz corpus beside them (issue 36 #19), and the corrupt
    /// fixtures still make it exit 3.
    func testTheDemoPipelineWarnsAboutNoIgnoredFiles() throws {
        let r = try rederive(["run", "Pipelines/demo.yml", "--db", dir.file("demo.sqlite"), "--report", dir.file("r/")])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertFalse(r.stderr.contains("that are not exports"), r.stderr)
        XCTAssertTrue(r.stderr.contains("truncated_frame"), "the corrupt fixtures are read: \(r.stderr)")
    }

    /// #17: `generate` finds the sample rooms from the binary when the working directory has none.
    func testGenerateWorksFromAnyDirectory() throws {
        let elsewhere = URL(fileURLWithPath: dir.file("elsewhere"))
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let r = try rederive(["generate", "-o", "data/x.jsonl.zst", "--records", "5", "--quiet"], in: elsewhere)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("data/x.jsonl.zst").path))
        // The same seed gives the same bytes as from the clone.
        let here = try rederive(["generate", "-o", dir.file("y.jsonl.zst"), "--records", "5", "--quiet"])
        XCTAssertEqual(here.status, 0, here.stderr)
        XCTAssertEqual(
            try Data(contentsOf: elsewhere.appendingPathComponent("data/x.jsonl.zst")),
            try Data(contentsOf: URL(fileURLWithPath: dir.file("y.jsonl.zst"))))
        let missing = try rederive(["generate", "-o", dir.file("z.jsonl"), "--rooms", dir.file("none")])
        XCTAssertEqual(missing.status, 1, missing.stderr)
    }

    /// #18: a mistyped subcommand is named, with the closest one, not as an unknown option.
    func testAMistypedSubcommandIsNamed() throws {
        let r = try rederive(["imprt", "Fixtures/exports", "--db", dir.file("x.sqlite")])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.hasPrefix("Error: unknown subcommand 'imprt'. Did you mean 'import'?"), r.stderr)
        XCTAssertFalse(r.stderr.contains("--db"), r.stderr)
        XCTAssertTrue(try rederive(["statsu"]).stderr.contains("Did you mean 'status'?"))
        let far = try rederive(["frobnicate"])
        XCTAssertEqual(far.status, 1)
        XCTAssertTrue(far.stderr.hasPrefix("Error: unknown subcommand 'frobnicate'.\n"), far.stderr)
        XCTAssertEqual(try rederive(["help", "import"]).status, 0)
        // A known subcommand with a mistyped option still names the option.
        let option = try rederive(["import", "Fixtures/exports", "--dbb", dir.file("x.sqlite")])
        XCTAssertTrue(option.stderr.hasPrefix("Error: Unknown option '--dbb'. Did you mean '--db'?"), option.stderr)
    }
}
