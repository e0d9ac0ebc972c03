import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// The built binary against hostile inputs and environments (issue 8): nothing hangs,
/// nothing is created before the inputs are checked, and errors give the real reason.
final class HostileInputCommandLineTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private var fixtures: String { RoomFixtures.repoRoot.appendingPathComponent("Fixtures").path }

    /// Runs the tool with stdout to `stdout` (a file path, /dev/full...); kills it and fails
    /// after `timeout` seconds, so a hang is a failure, not a stuck suite.
    private func rederive(
        _ arguments: [String], stdout: String? = nil, timeout: Double = 60,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CommandLineTool.executable())
        process.arguments = arguments
        process.currentDirectoryURL = dir.url
        let out = stdout ?? dir.file("stdout-\(UUID().uuidString)")
        let err = dir.file("stderr-\(UUID().uuidString)")
        if !FileManager.default.fileExists(atPath: out) { FileManager.default.createFile(atPath: out, contents: nil) }
        FileManager.default.createFile(atPath: err, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            XCTFail("rederive \(arguments) still running after \(timeout) s", file: file, line: line)
        }
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    // MARK: Point 4: FIFOs

    func testFIFOGivenDirectlyIsAUsageErrorForImportAndSummarize() throws {
        let fifo = dir.file("f.jsonl")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let db = dir.file("s.sqlite")
        var r = try rederive(["import", fifo, "--db", db])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("a FIFO"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "no store before the inputs are checked")
        r = try rederive(["summarize", fifo])
        XCTAssertEqual(r.status, 1, r.stderr)
    }

    func testFIFOInsideADirectoryIsReportedNotWaitedOn() throws {
        let input = dir.file("in")
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: fixtures + "/exports/rooms-v2.jsonl", toPath: input + "/rooms-v2.jsonl")
        XCTAssertEqual(mkfifo(input + "/pipe.jsonl.zst", 0o644), 0)
        let report = dir.file("issues.jsonl")
        for command in [
            ["import", input, "--db", dir.file("s.sqlite"), "--skip-imported-files"], ["summarize", input],
        ] {
            let r = try rederive(command + ["--report", report])
            // An export nothing could be read from is a file fault like a truncated one (issue 36).
            XCTAssertEqual(r.status, 3, "\(command[0]): \(r.stderr)")
            let issues = try String(contentsOfFile: report, encoding: .utf8)
            XCTAssertTrue(issues.contains("pipe.jsonl.zst") && issues.contains("file_unreadable"), issues)
        }
    }

    // MARK: Point 5: missing inputs, no exports, ignored files

    func testMissingInputIsExit1AndCreatesNoStore() throws {
        let db = dir.file("s.sqlite")
        let r = try rederive(["import", "typo.jsonl.zst", "--db", db])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("typo.jsonl.zst: no such file or directory"), r.stderr)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("s.sqlite") }
        XCTAssertEqual(left, [], "nothing created")
        XCTAssertEqual(try rederive(["summarize", "typo.jsonl"]).status, 1)
    }

    func testPipelineWithAMissingInputIsExit1AndCreatesNoStore() throws {
        let db = dir.file("s.sqlite")
        let pipeline = RoomFixtures.repoRoot.appendingPathComponent("Pipelines/nightly.yml").path
        let r = try rederive(["run", pipeline, "--input", "typo", "--db", db, "--out", dir.file("o.jsonl")])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("typo: no such file or directory"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db))
    }

    func testDirectoryWithoutExportsIsExit1AndListsWhatItIgnored() throws {
        let input = dir.file("in")
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: input + "/rooms.ndjson", contents: Data("{}\n".utf8))
        let db = dir.file("s.sqlite")
        let r = try rederive(["import", input, "--db", db])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("no export files") && r.stderr.contains("rooms.ndjson"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db))
    }

    func testIgnoredFilesInADirectoryAreAWarning() throws {
        let input = dir.file("in")
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: fixtures + "/exports/rooms-v2.jsonl", toPath: input + "/rooms-v2.jsonl")
        try FileManager.default.copyItem(atPath: fixtures + "/exports/rooms-v2.jsonl", toPath: input + "/ROOMS.JSONL")
        FileManager.default.createFile(atPath: input + "/old.jsonl.gz", contents: Data())
        let r = try rederive(["summarize", input, "--out", dir.file("out.jsonl")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("ROOMS.JSONL (names are case-sensitive"), r.stderr)
        XCTAssertTrue(r.stderr.contains("old.jsonl.gz (compressed as .gz"), r.stderr)
    }

    // MARK: Point 7: read-only media

    /// Runs `arguments` with `directory` read-only: a read-only bind mount in a private mount
    /// namespace as root (root ignores permissions), chmod 555 otherwise. Nil when neither
    /// can be arranged here.
    private func rederiveWithReadOnly(
        _ directory: String, _ arguments: [String]
    ) throws -> (status: Int32, stderr: String)? {
        if getuid() != 0 {
            chmod(directory, 0o555)
            defer { chmod(directory, 0o755) }
            return try rederive(arguments)
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return nil }
        let quoted = ([try CommandLineTool.executable()] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let script =
            "mount --bind '\(directory)' '\(directory)' && mount -o remount,bind,ro '\(directory)' '\(directory)' "
            + "&& touch '\(directory)/probe' 2>/dev/null && exit 97; exec \(quoted)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["--mount", "--propagation", "private", "sh", "-c", script]
        let err = dir.file("stderr-ro")
        FileManager.default.createFile(atPath: err, contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        try process.run()
        process.waitUntilExit()
        let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        // unshare or mount refused (no CAP_SYS_ADMIN), or the mount did not make it read-only.
        if process.terminationStatus == 97 || stderr.contains("unshare:") || stderr.contains("mount:") { return nil }
        return (process.terminationStatus, stderr)
    }

    func testStatusAndDryRunWorkOnReadOnlyMedia() throws {
        let media = dir.file("media")
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        let db = media + "/s.sqlite"
        XCTAssertEqual(try rederive(["import", fixtures + "/exports/rooms-v2.jsonl", "--db", db, "--quiet"]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-wal"), "closed stores are checkpointed")
        guard let status = try rederiveWithReadOnly(media, ["status", "--db", db]) else {
            throw XCTSkip("cannot make a read-only directory here (no mount namespace, and root ignores chmod)")
        }
        XCTAssertEqual(status.status, 0, status.stderr)
        let dryRun = try XCTUnwrap(
            try rederiveWithReadOnly(
                media,
                [
                    "derive", "--dry-run", "--db", db,
                    "--preview-out", dir.file("preview"),
                ]))
        XCTAssertEqual(dryRun.status, 0, dryRun.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("preview") + "/preview.json"))
    }

    // MARK: Point 3: a deeply nested pipeline file

    func testDeeplyNestedPipelineIsExit1WithFileAndLine() throws {
        let path = dir.file("deep.yml")
        let text =
            "version: 1\nstages:\n  - derive: " + String(repeating: "[", count: 5_000)
            + String(repeating: "]", count: 5_000)
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        let r = try rederive(["run", path, "--db", dir.file("s.sqlite")])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("deep.yml:3: nested deeper than"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("s.sqlite")))
    }

    // MARK: Point 13: the process's own peak memory

    func testPeakMemoryIsTheProcessOwnNotTheParents() throws {
        // This test process grows to ~400 MB resident; a child spawned from it (posix_spawn,
        // vfork-style) inherited that figure as its getrusage peak.
        let ballast = UnsafeMutableRawPointer.allocate(byteCount: 400 << 20, alignment: 4096)
        defer { ballast.deallocate() }
        for page in stride(from: 0, to: 400 << 20, by: 4096) {
            ballast.storeBytes(of: 1, toByteOffset: page, as: UInt8.self)
        }
        let out = dir.file("run.json")
        let r = try rederive(
            ["summarize", fixtures + "/exports/rooms-v2.jsonl", "--out", dir.file("s.jsonl"), "--json"],
            stdout: out)
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any])
        let peak = try XCTUnwrap(
            (json["statistics"] as? [String: Any])?["peakResidentMB"] as? Double ?? json["peakResidentMB"] as? Double,
            "\(json)")
        XCTAssertGreaterThan(peak, 0)
        XCTAssertLessThan(peak, 200, "a 6-record summarize peaks at tens of MB, not at its parent's 400 MB")
    }

    // MARK: Point 14: the real reason for a failed write to standard output

    func testFullStandardOutputSaysNoSpaceLeft() throws {
        let r = try rederive(["summarize", fixtures + "/exports"], stdout: "/dev/full")
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("No space left on device"), r.stderr)
    }

    func testShortWriteToStandardOutputGivesTheRealReason() throws {
        // A file size limit makes write(2) write part of the buffer and set no errno; the next
        // call fails with EFBIG. Standard output is a file here, as with `> file` on a full disk.
        let out = dir.file("out.jsonl")
        FileManager.default.createFile(atPath: out, contents: nil)
        let quoted = [try CommandLineTool.executable(), "summarize", fixtures + "/exports"].map { "'\($0)'" }.joined(
            separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -f 16; trap '' XFSZ; exec \(quoted) > '\(out)'"]
        let err = dir.file("stderr-short")
        FileManager.default.createFile(atPath: err, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        try process.run()
        process.waitUntilExit()
        let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        XCTAssertEqual(process.terminationStatus, 2, stderr)
        XCTAssertTrue(stderr.contains("File too large"), stderr)
        XCTAssertFalse(stderr.contains("Inappropriate ioctl"), stderr)
    }

    // MARK: Point 14: an empty .jsonl.zst

    func testEmptyZstdExportIsADamagedFrame() throws {
        let empty = dir.file("empty.jsonl.zst")
        FileManager.default.createFile(atPath: empty, contents: Data())
        let report = dir.file("issues.jsonl")
        let r = try rederive(["summarize", empty, "--report", report])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(try String(contentsOfFile: report, encoding: .utf8).contains("damaged_frame"))
    }
}
