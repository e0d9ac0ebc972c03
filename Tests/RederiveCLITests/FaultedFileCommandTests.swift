import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// Nightly semantics for file faults (issue 24 item 4): a truncated or unreadable export is
/// recorded by content hash with its fault and not read again by a nightly import
/// (`--skip-imported-files`) until its bytes change or `--retry-files`; an export from which
/// no record could be read is a file fault like a truncated one (exit 3, issue 36 #3: one
/// garbage upload costs only its own records), never over the error budget by itself.
final class FaultedFileCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    func testAFaultedFileIsReadOnceUntilItChangesOrIsRetried() throws {
        try Self.checkFaultedFiles(db: dir.file("rooms.sqlite"), dir: dir)
    }

    /// `--retry-files` alone would read every file anyway, as without it: a usage error naming the
    /// flag it needs (a pipeline file's `retry-files` without `skip-imported-files` is refused too),
    /// and no store is made.
    func testRetryFilesWithoutSkipImportedFilesIsAUsageError() throws {
        let db = dir.file("rooms.sqlite")
        let export = RoomFixtures.repoRoot.appendingPathComponent("Fixtures/corrupt/truncated.jsonl.zst").path
        let result = try CommandLineTool.invoke(["import", export, "--db", db, "--retry-files"], scratch: dir)
        XCTAssertEqual(result.status, ExitStatus.usage.rawValue, result.stderr)
        XCTAssertTrue(result.stderr.contains("--retry-files needs --skip-imported-files"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db))
    }

    /// The scenario, on the store `db` (a SQLite path or a server URL).
    static func checkFaultedFiles(db: String, dir: TemporaryDirectory) throws {
        func rederive(_ arguments: [String]) throws -> CommandLineResult {
            try CommandLineTool.invoke(arguments, scratch: dir)
        }
        let incoming = dir.file("incoming")
        try FileManager.default.createDirectory(atPath: incoming, withIntermediateDirectories: true)
        let truncated = incoming + "/truncated.jsonl.zst"
        try FileManager.default.copyItem(
            atPath: RoomFixtures.repoRoot.appendingPathComponent("Fixtures/corrupt/truncated.jsonl.zst").path,
            toPath: truncated)
        let nightly = ["import", incoming, "--db", db, "--skip-imported-files", "--json"]

        let first = try rederive(nightly)
        XCTAssertEqual(first.status, ExitStatus.skippedRecords.rawValue, first.stderr)
        XCTAssertTrue(first.stderr.contains("truncated_frame"), first.stderr)

        // The same bytes: skipped with the recorded reason, not reported again; a success.
        let second = try rederive(nightly)
        XCTAssertEqual(second.status, ExitStatus.ok.rawValue, second.stderr)
        XCTAssertTrue(second.stderr.contains("skipped, the same bytes ended in a file fault in run 1"), second.stderr)
        XCTAssertTrue(second.stderr.contains("--retry-files"), second.stderr)
        XCTAssertTrue(second.stdout.contains("\"filesSkipped\":1"), second.stdout)
        XCTAssertTrue(second.stdout.contains("\"fileFaults\":0"), second.stdout)

        // Asked to: read again (and reported again).
        let retried = try rederive(nightly + ["--retry-files"])
        XCTAssertEqual(retried.status, ExitStatus.skippedRecords.rawValue, retried.stderr)
        XCTAssertTrue(retried.stdout.contains("\"fileFaults\":1"), retried.stdout)

        // New bytes are a new file: read.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: truncated))
        handle.seekToEndOfFile()
        handle.write(Data([0x00, 0x01]))
        try handle.close()
        let changed = try rederive(nightly)
        XCTAssertEqual(changed.status, ExitStatus.skippedRecords.rawValue, changed.stderr)
        XCTAssertTrue(changed.stdout.contains("\"fileFaults\":1"), changed.stdout)

        // An export from which nothing could be read: one file fault, as a truncated one is.
        var random = SystemRandomNumberGenerator()
        try Data((0..<200_000).map { _ in UInt8.random(in: 0...255, using: &random) })
            .write(to: URL(fileURLWithPath: incoming + "/zz-random.jsonl.zst"))
        let unreadable = try rederive(nightly + ["--max-errors", "1000", "-q"])
        XCTAssertEqual(unreadable.status, ExitStatus.skippedRecords.rawValue, unreadable.stderr)
        XCTAssertTrue(unreadable.stdout.contains("\"fileFaults\":1"), unreadable.stdout)
        XCTAssertTrue(
            unreadable.stderr.contains("\(incoming)/zz-random.jsonl.zst") && unreadable.stderr.contains("file fault"),
            unreadable.stderr)
        // Reported once: the next night skips it and succeeds.
        let after = try rederive(nightly)
        XCTAssertEqual(after.status, ExitStatus.ok.rawValue, after.stderr)
    }
}
