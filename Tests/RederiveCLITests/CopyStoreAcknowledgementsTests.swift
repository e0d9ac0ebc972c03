import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// `rederive copy-store` carries the operator's acknowledgements (`failures --ack`) and the
/// faulted files: on the destination the monitoring check still ignores what was
/// acknowledged, and a nightly import still skips the bytes that ended in a file fault.
final class CopyStoreAcknowledgementsTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    func testCopyToSQLiteKeepsAcknowledgementsAndFaultedFiles() throws {
        try Self.scenario(destination: dir.file("copy.sqlite"), scratch: dir)
    }

    /// The scenario, copying a SQLite store into `destination` (a SQLite path or a server URL).
    static func scenario(
        destination: String, scratch dir: TemporaryDirectory, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        func rederive(_ arguments: [String]) throws -> CommandLineResult {
            try CommandLineTool.invoke(arguments, scratch: dir)
        }
        let source = dir.file("source.sqlite")
        // One folder with only the truncated export: a nightly import of it on the destination.
        let truncated = dir.file("truncated")
        try FileManager.default.createDirectory(atPath: truncated, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: RoomFixtures.repoRoot.appendingPathComponent("Fixtures/corrupt/truncated.jsonl.zst").path,
            toPath: truncated + "/truncated.jsonl.zst")
        let imported = try rederive([
            "import", "Fixtures/corrupt/corrupt-records.jsonl", truncated, "--db", source, "--skip-imported-files",
            "--quiet",
        ])
        XCTAssertEqual(imported.status, ExitStatus.skippedRecords.rawValue, imported.stderr, file: file, line: line)
        let ack = try rederive(["failures", "--db", source, "--ack", "--file", "corrupt-records.jsonl"])
        XCTAssertEqual(ack.stdout, "acknowledged 13 failures\n", ack.stderr, file: file, line: line)
        let sourceCheck = try rederive(["status", "--db", source, "--check"])
        XCTAssertTrue(sourceCheck.stdout.hasPrefix("1 open failure "), sourceCheck.stdout, file: file, line: line)

        let copy = try rederive(["copy-store", "--from", source, "--to", destination, "--quiet"])
        XCTAssertEqual(copy.status, ExitStatus.ok.rawValue, copy.stderr, file: file, line: line)

        // The check on the destination counts what it counted on the source.
        let check = try rederive(["status", "--db", destination, "--check"])
        XCTAssertEqual(check.status, 5, check.stdout + check.stderr, file: file, line: line)
        XCTAssertTrue(check.stdout.hasPrefix("1 open failure "), check.stdout, file: file, line: line)
        let acknowledged = try rederive(["failures", "--db", destination, "--acknowledged", "--json"])
        let object = try XCTUnwrap(
            JSONSerialization.jsonObject(with: acknowledged.stdoutData) as? [String: Any], file: file, line: line)
        XCTAssertEqual(object["count"] as? Int, 13, acknowledged.stdout, file: file, line: line)

        // The faulted export is skipped with its recorded reason, not read and reported again.
        let nightly = try rederive(["import", truncated, "--db", destination, "--skip-imported-files", "--json"])
        XCTAssertEqual(nightly.status, ExitStatus.ok.rawValue, nightly.stderr, file: file, line: line)
        XCTAssertTrue(
            nightly.stderr.contains("the same bytes ended in a file fault"), nightly.stderr, file: file, line: line)
        XCTAssertTrue(nightly.stdout.contains("\"fileFaults\":0"), nightly.stdout, file: file, line: line)

        // A rerun of the copy adds nothing twice, and says so (issue 36 #13).
        let again = try rederive(["copy-store", "--from", source, "--to", destination])
        XCTAssertEqual(again.status, ExitStatus.ok.rawValue, again.stderr, file: file, line: line)
        XCTAssertTrue(
            again.stderr.contains("history already copied by an earlier copy-store, nothing added: "),
            again.stderr, file: file, line: line)
        XCTAssertFalse(again.stderr.contains("history copied:"), again.stderr, file: file, line: line)
        XCTAssertTrue(
            try rederive(["status", "--db", destination, "--check"]).stdout.hasPrefix("1 open failure "),
            file: file, line: line)
    }
}
