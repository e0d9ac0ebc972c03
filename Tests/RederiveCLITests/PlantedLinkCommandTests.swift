import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// Security review 2026-11-27, run as an attacker who can write beside the outputs or the
/// store would: S01 (a link at an output's final name to a FIFO or device), S02 (a link at an
/// output folder), S03 (`show --svg` naming the store), S09 (`--report /dev/stdout >> log`),
/// S14 (two outputs in one file), S15 (a link as `--db`).
final class PlantedLinkCommandTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func rederive(_ arguments: [String]) throws -> CommandLineResult {
        try CommandLineTool.invoke(arguments, scratch: dir)
    }

    private func fileType(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    private let firstID = "11111111-1111-4111-8111-111111111111"

    /// An export with two good records and one bad line, imported into a store.
    private func store() throws -> (db: String, input: String) {
        let input = dir.file("in.jsonl")
        let room = try ExportFixtures.compactRoom("Kitchen")
        try ExportFixtures.write(
            lines: [
                String(decoding: ExportFixtures.v3Line(id: firstID, name: "A", roomText: room), as: UTF8.self),
                "{not json",
                String(
                    decoding: ExportFixtures.v3Line(
                        id: "22222222-2222-4222-8222-222222222222", name: "B", roomText: room),
                    as: UTF8.self),
            ], to: input)
        let db = dir.file("s.sqlite")
        XCTAssertEqual(try rederive(["import", input, "--db", db, "-q"]).status, 3)
        return (db, input)
    }

    // S01: every output flag whose final name is a planted link to a FIFO writes a file of
    // its own there; the FIFO (standing in for /dev/kmsg or a console) receives nothing.
    func testALinkAtAnOutputToAFIFOIsReplacedAndTheFIFOGetsNothing() throws {
        let (db, input) = try store()
        let fifo = dir.file("fifo")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let cases: [(args: (String) -> [String], expect: String)] = [
            ({ ["import", input, "--db", db, "--report", $0, "-q"] }, "invalid_json"),
            ({ ["import", input, "--db", db, "--metrics-file", $0, "-q"] }, "rederive_records"),
            ({ ["status", "--db", db, "--html", $0] }, "<html"),
            ({ ["export", "--db", db, "-o", $0, "-q"] }, "\"roomName\""),
            ({ ["show", self.firstID, "--db", db, "--svg", $0] }, "<svg"),
        ]
        for (index, c) in cases.enumerated() {
            let name = dir.file("out\(index).jsonl")
            XCTAssertEqual(symlink(fifo, name), 0)
            let reader = FIFOReader(fifo)
            let r = try rederive(c.args(name))
            let leaked = reader.release()
            XCTAssertTrue([0, 3].contains(r.status), "\(c.args(name)): \(r.stderr)")
            XCTAssertEqual(leaked.count, 0, "\(c.args(name)[0]): the FIFO received \(leaked.count) bytes")
            XCTAssertEqual(fileType(name), S_IFREG, "\(c.args(name)[0]): the link was replaced")
            let text = try String(contentsOfFile: name, encoding: .utf8)
            XCTAssertTrue(text.contains(c.expect), "\(c.args(name)[0]): \(text.prefix(200))")
        }
        XCTAssertEqual(fileType(fifo), S_IFIFO)
    }

    // S02: a planted link at the default preview folder or at --svg-dir is refused before
    // anything is written; its target stays empty.
    func testALinkAtThePreviewFolderOrTheDrawingsFolderIsRefused() throws {
        let (db, input) = try store()
        let elsewhere = dir.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        XCTAssertEqual(symlink(elsewhere, db + "-preview"), 0)
        let dry = try rederive(["derive", "--db", db, "--all", "--dry-run"])
        XCTAssertEqual(dry.status, 1, dry.stderr)
        XCTAssertTrue(dry.stderr.contains("symbolic link"), dry.stderr)
        let drawings = dir.file("d")
        XCTAssertEqual(symlink(elsewhere, drawings), 0)
        let summarize = try rederive(["summarize", input, "-o", dir.file("o.jsonl"), "--svg-dir", drawings, "-q"])
        XCTAssertEqual(summarize.status, 1, summarize.stderr)
        XCTAssertTrue(summarize.stderr.contains("symbolic link"), summarize.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere), [])
        // A real folder works as before.
        let real = dir.file("real-d")
        let ok = try rederive(["summarize", input, "-o", dir.file("o.jsonl"), "--svg-dir", real, "-q"])
        XCTAssertEqual(ok.status, 3, ok.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: real).count, 2)
    }

    // S03: a read-only command never overwrites the store, its lock or side files, however
    // spelled; the store stays a database.
    func testShowSvgNeverOverwritesTheStoreOrItsLock() throws {
        let (db, _) = try store()
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        FileManager.default.createFile(atPath: db + ".lock", contents: Data("lock".utf8))
        let other = dir.file("sub")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        for svg in [db, other + "/../s.sqlite", db + ".lock", db + "-wal"] {
            let r = try rederive(["show", firstID, "--db", db, "--svg", svg])
            XCTAssertEqual(r.status, 1, "\(svg): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("refusing to overwrite it"), r.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before)
        XCTAssertEqual(try String(contentsOfFile: db + ".lock", encoding: .utf8), "lock")
        XCTAssertEqual(try StoreInspection.int(db, "SELECT COUNT(*) FROM record"), 2)
    }

    // S09: `--report /dev/stdout >> log` appends to the log, as the shell opened it.
    func testAReportToDevStdoutAppendsToALogOpenedForAppending() throws {
        let (_, input) = try store()
        let log = dir.file("cron.log")
        let earlier = (0..<40).map { "PREVIOUS NIGHT LOG LINE \($0)\n" }.joined()
        try earlier.write(toFile: log, atomically: false, encoding: .utf8)
        let r = try CommandLineTool.invoke(
            [
                "-c", "exec \"$0\" import \"$1\" --db \"$2\" --report /dev/stdout -q >> \"$3\"",
                try CommandLineTool.executable(), input, dir.file("t.sqlite"), log,
            ], executable: "/bin/sh", scratch: dir)
        XCTAssertEqual(r.status, 3, r.stderr)
        let text = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix(earlier), "the log's start was overwritten: \(text.prefix(120))")
        XCTAssertTrue(text.dropFirst(earlier.utf8.count).contains("invalid_json"), text)
    }

    // S14: two outputs of one command on one file are refused before anything runs.
    func testTwoOutputsNamingOneFileAreRefused() throws {
        let (_, input) = try store()
        let db = dir.file("p.sqlite"), both = dir.file("r.jsonl")
        let r = try rederive(["import", input, "--db", db, "--report", both, "--metrics-file", both])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("two outputs in one file"), r.stderr)
        XCTAssertNil(fileType(db), "nothing was done")
        XCTAssertNil(fileType(both))
    }

    // S15: a link as --db, dangling or not, is refused with its name; nothing is created.
    func testALinkAsTheStoreIsRefusedAndNothingIsCreated() throws {
        let (db, input) = try store()
        let dangling = dir.file("d.sqlite"), toStore = dir.file("l.sqlite")
        XCTAssertEqual(symlink(dir.file("newdir/new.db"), dangling), 0)
        XCTAssertEqual(symlink(db, toStore), 0)
        for (link, args) in [
            (dangling, ["import", input, "--db", dangling]), (toStore, ["import", input, "--db", toStore]),
            (toStore, ["derive", "--db", toStore, "--all"]), (toStore, ["status", "--db", toStore]),
        ] {
            let r = try rederive(args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("\(link): is a symbolic link"), r.stderr)
            XCTAssertFalse(r.stderr.contains("creating a new store"), r.stderr)
            XCTAssertNil(fileType(link + ".lock"), "\(args): no lock beside the link")
        }
        XCTAssertNil(fileType(dir.file("newdir")), "nothing created where the link points")
    }
}
