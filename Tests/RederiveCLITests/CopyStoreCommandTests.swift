import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// `rederive copy-store` on the command line: usage errors that leave everything untouched,
/// the `--json` counts and what `--help` says is not copied.
final class CopyStoreCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    private func importedStore() throws -> String {
        let db = dir.file("rooms.sqlite")
        let r = try rederive(["import", "Fixtures/exports", "--db", db, "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return db
    }

    func testMissingSourceIsAUsageErrorNamingItAndCreatesNothing() throws {
        let missing = dir.file("nowhere.sqlite"), target = dir.file("copy.sqlite")
        let r = try rederive(["copy-store", "--from", missing, "--to", target])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(missing): no such store"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target), "no destination created")
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing), "no source created")
        let noTo = try rederive(["copy-store", "--from", missing])
        XCTAssertEqual(noTo.status, 1)
        XCTAssertTrue(noTo.stderr.contains("--to"), noTo.stderr)
    }

    func testSourceAsDestinationIsAUsageErrorAndLeavesItUntouched() throws {
        let db = try importedStore()
        let before = StoreInspection.fileBytes(db)
        let link = dir.file("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: db)
        for to in [db, link, dir.path + "/./rooms.sqlite"] {
            let r = try rederive(["copy-store", "--from", db, "--to", to])
            XCTAssertEqual(r.status, 1, "\(to): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("is the store to copy"), r.stderr)
        }
        // A copy of the file is the same store under another name: refused by its identity.
        let twin = dir.file("twin.sqlite")
        try FileManager.default.copyItem(atPath: db, toPath: twin)
        let r = try rederive(["copy-store", "--from", db, "--to", twin])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains(twin), r.stderr)
        XCTAssertEqual(StoreInspection.fileBytes(db)[""], before[""], "the store file is left byte-identical")
        XCTAssertEqual(try StoreInspection.int(twin, "SELECT COUNT(*) FROM run WHERE command = 'copy-store'"), 0)
    }

    func testCopyReportsCountsAndARerunIsUnchanged() throws {
        let db = try importedStore()
        let target = dir.file("new/copy.sqlite")
        // A new store in a folder that does not exist needs --create-dirs (StoreFolderCommandTests).
        let first = try rederive([
            "copy-store", "--from", db, "--to", target, "--json", "--batch-size", "5", "--create-dirs",
        ])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stderr.contains("creating a new store at \(target)"), first.stderr)
        let run = try XCTUnwrap(JSONSerialization.jsonObject(with: first.stdoutData) as? [String: Any])
        XCTAssertEqual(run["command"] as? String, "copy-store")
        let counts = try XCTUnwrap(run["counts"] as? [String: Any])
        XCTAssertEqual(counts["read"] as? Int, 32)
        XCTAssertEqual(counts["copied"] as? Int, 32)
        XCTAssertEqual(counts["unchanged"] as? Int, 0)
        XCTAssertEqual(counts["skipped"] as? Int, 0)

        let again = try rederive(["copy-store", "--from", db, "--to", target])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("32 read, 0 copied, 0 newer, 32 unchanged, 0 skipped"), again.stderr)
        let exported = try rederive(["export", "--db", target, "-o", dir.file("e.jsonl"), "-q"])
        XCTAssertEqual(exported.status, 0, exported.stderr)
    }

    func testHelpSaysTheHistoryIsCopied() throws {
        let r = try CommandLineTool.invoke(["copy-store", "--help"], environment: ["COLUMNS": "80"], scratch: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        for line in r.stdout.split(separator: "\n") where !line.hasPrefix("USAGE:") {
            XCTAssertLessThanOrEqual(line.count, 80, "copy-store --help: \(line)")
        }
        let help = r.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(
            separator: " ")
        for phrase in [
            "Also copied, once the records are: the run history", "the summary history",
            "revert --run N` of a run made on the old store works on the new one", "failure ledger", "left untouched",
        ] {
            XCTAssertTrue(help.contains(phrase), "copy-store --help: \(phrase)")
        }
    }
}
