import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// A store path whose folder does not exist is a typo, not a new store (review #19): exit 1
/// "no such folder" with nothing created, unless `--create-dirs` (pipeline key `create-dirs: true`).
final class StoreFolderCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }

    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    private func assertNoSuchFolder(
        _ r: CommandLineResult, _ folder: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(r.status, 1, r.stderr, file: file, line: line)
        XCTAssertTrue(r.stderr.contains("no such folder: \(folder)"), r.stderr, file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder), "\(folder) was created", file: file, line: line)
    }

    func testImportIntoAMissingFolderIsAUsageError() throws {
        let typo = dir.file("typo/dir")
        assertNoSuchFolder(try rederive(["import", "Fixtures/exports", "--db", typo + "/x.sqlite", "--quiet"]), typo)
        let created = try rederive([
            "import", "Fixtures/exports", "--db", typo + "/x.sqlite", "--quiet", "--create-dirs",
        ])
        XCTAssertEqual(created.status, 0, created.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: typo + "/x.sqlite"))
        // An existing folder needs no flag.
        XCTAssertEqual(try rederive(["import", "Fixtures/exports", "--db", dir.file("y.sqlite"), "--quiet"]).status, 0)
        // copy-store's new store likewise.
        let copy = dir.file("elsewhere")
        assertNoSuchFolder(
            try rederive(["copy-store", "--from", typo + "/x.sqlite", "--to", copy + "/c.sqlite"]), copy)
        XCTAssertEqual(
            try rederive([
                "copy-store", "--from", typo + "/x.sqlite", "--to", copy + "/c.sqlite", "--create-dirs", "-q",
            ])
            .status, 0)
    }

    func testPipelineStoreFolderNeedsCreateDirs() throws {
        let pipeline = dir.file("p.yml")
        try """
        version: 1
        name: p
        store: missing/p.sqlite
        stages:
          - import: { paths: [\(RoomFixtures.repoRoot.path)/Fixtures/exports] }
        """.write(toFile: pipeline, atomically: true, encoding: .utf8)
        let r = try rederive(["run", pipeline, "--quiet"])
        assertNoSuchFolder(r, dir.file("missing"))
        XCTAssertTrue(r.stderr.contains("`create-dirs: true` in the pipeline file"), r.stderr)
        XCTAssertEqual(try rederive(["run", pipeline, "--quiet", "--create-dirs"]).status, 0)
        // The key does the same.
        try String(contentsOfFile: pipeline, encoding: .utf8)
            .replacingOccurrences(of: "store: missing/p.sqlite", with: "store: other/p.sqlite\ncreate-dirs: true")
            .write(toFile: pipeline, atomically: true, encoding: .utf8)
        XCTAssertEqual(try rederive(["run", pipeline, "--quiet"]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("other/p.sqlite")))
        // The key covers the store the file names, not a --db typed on the command line.
        let typo = dir.file("typo2")
        assertNoSuchFolder(try rederive(["run", pipeline, "--quiet", "--db", typo + "/p.sqlite"]), typo)
        XCTAssertEqual(
            try rederive(["run", pipeline, "--quiet", "--db", typo + "/p.sqlite", "--create-dirs"]).status, 0)
    }

    func testShippedPipelinesCreateTheirFolders() throws {
        for name in ["demo", "nightly", "backfill"] {
            let definition = try PipelineDefinition.load(
                path: RoomFixtures.repoRoot.appendingPathComponent("Pipelines/\(name).yml").path)
            XCTAssertTrue(definition.createDirs, name)
        }
    }
}
