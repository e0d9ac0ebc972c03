import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveSQLite
@testable import RederiveTestSupport

/// The one output-path policy: regular files atomically through exclusive temporaries,
/// FIFOs and devices written into and never replaced, directories and sockets refused, and
/// an output never the store, a side file of it, or an input.
final class OutputFileTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func fileType(_ path: String) -> mode_t {
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0, path)
        return info.st_mode & S_IFMT
    }

    func testANewOrRegularFileIsWrittenThroughATemporaryRenamedIntoPlace() throws {
        let path = dir.file("sub/out.txt")
        try OutputFile.write("one\n", to: path)
        try OutputFile.write("two\n", to: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "two\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.file("sub")), ["out.txt"])
    }

    func testOneCharacterNamesAreWrittenNotATrap() throws {
        // Foundation's deletingLastPathComponent traps on "r": `--report r` crashed every command.
        for (path, folder) in [("r", ""), ("a/b", "a"), ("/r", "/"), ("x/", ""), ("./r", "."), ("a//b/", "a")] {
            XCTAssertEqual(OutputFile.folder(of: path), folder, path)
        }
        let cwd = FileManager.default.currentDirectoryPath
        FileManager.default.changeCurrentDirectoryPath(dir.path)
        defer { FileManager.default.changeCurrentDirectoryPath(cwd) }
        try OutputPathCheck.writable("r", what: "--report")
        try OutputPathCheck.writable("q/r", what: "--report")
        try OutputFile.write("x\n", to: "r")
        XCTAssertEqual(try String(contentsOfFile: dir.file("r"), encoding: .utf8), "x\n")
    }

    func testAFIFOIsWrittenIntoAndStaysAFIFO() throws {
        for writer in ["whole file", "zstd writer"] {
            let fifo = dir.file("pipe-\(writer.count)")
            XCTAssertEqual(mkfifo(fifo, 0o644), 0)
            let reader = FIFOReader(fifo)
            if writer == "whole file" {
                try OutputFile.write("through the pipe\n", to: fifo)
            } else {
                let w = try ZstdWriter(path: fifo)
                try w.write("through the pipe\n")
                try w.finish()
            }
            XCTAssertEqual(String(decoding: reader.wait(), as: UTF8.self), "through the pipe\n", writer)
            XCTAssertEqual(fileType(fifo), S_IFIFO, "\(writer): the FIFO was not replaced")
            XCTAssertFalse(FileManager.default.fileExists(atPath: fifo + ".partial"), writer)
        }
    }

    func testACharacterDeviceIsWrittenIntoAndNeverReplaced() throws {
        // The system's own /dev/null is only classified here, never written by this test.
        XCTAssertEqual(try OutputFile.target(of: "/dev/null", what: "--report"), .stream)
        XCTAssertEqual(try OutputFile.target(of: "/dev/stdout", what: "--report"), .descriptor(1))
        // A copy of /dev/null (root only) is written into, as a report, metrics file or plan.
        let copy = dir.file("null")
        guard mknod(copy, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 else {
            XCTAssertEqual(errno, EPERM, "mknod failed for another reason than permission")
            return
        }
        try OutputFile.write("discarded\n", to: copy)
        let w = try ZstdWriter(path: copy)
        try w.write("discarded too\n")
        try w.finish()
        XCTAssertEqual(fileType(copy), S_IFCHR, "the device node is still a device")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["null"])
    }

    func testPlantedLinksAtTheTemporaryNameAreNeverFollowed() throws {
        let victim = dir.file("victim")
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        let out = dir.file("out.jsonl")
        XCTAssertEqual(symlink(victim, out + ".partial"), 0)
        try OutputFile.write("report\n", to: out)
        XCTAssertEqual(symlink(victim, dir.file("x.jsonl.partial")), 0)
        let w = try ZstdWriter(path: dir.file("x.jsonl"))
        try w.write("x\n")
        try w.finish()
        XCTAssertEqual(
            try String(contentsOfFile: victim, encoding: .utf8), "precious\n", "the link's target is untouched")
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "report\n")
        XCTAssertEqual(fileType(out + ".partial"), S_IFLNK, "the planted link is left as it was, not removed")
    }

    /// `kill -9` leaves `X.partial` behind (no handler runs): the next write of X removes it
    /// and takes the name, instead of leaving it forever beside a `X.partial-XXXXXX` of its own.
    func testATemporaryAKilledRunLeftIsRemovedByTheNextWrite() throws {
        let out = dir.file("out.jsonl")
        try "half a report\n".write(toFile: out + ".partial", atomically: false, encoding: .utf8)
        let handle = try OutputFile.open(out)
        XCTAssertEqual(handle.temporaryPath, out + ".partial", "the left-over name is reused")
        try handle.write(ArraySlice("report\n".utf8))
        try handle.commit()
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "report\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["out.jsonl"])
    }

    /// A temporary another writer holds (its lock), a FIFO, or another user's file at the
    /// name is left exactly as it is; the write goes through a name of its own.
    func testATemporaryInUseOrNotThisUsersIsLeftAlone() throws {
        let out = dir.file("out.jsonl")
        try "being written\n".write(toFile: out + ".partial", atomically: false, encoding: .utf8)
        let holder = open(out + ".partial", O_RDONLY)
        XCTAssertEqual(flock(holder, LOCK_EX), 0)
        defer { close(holder) }
        try OutputFile.write("report\n", to: out)
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "report\n")
        XCTAssertEqual(try String(contentsOfFile: out + ".partial", encoding: .utf8), "being written\n")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["out.jsonl", "out.jsonl.partial"])

        let piped = dir.file("piped.jsonl")
        XCTAssertEqual(mkfifo(piped + ".partial", 0o600), 0)
        try OutputFile.write("p\n", to: piped)  // neither blocks on the FIFO nor removes it
        XCTAssertEqual(fileType(piped + ".partial"), S_IFIFO)

        guard geteuid() == 0 else { return }
        let theirs = dir.file("theirs.jsonl")
        try "someone else's\n".write(toFile: theirs + ".partial", atomically: false, encoding: .utf8)
        XCTAssertEqual(chown(theirs + ".partial", 65534, 65534), 0)
        try OutputFile.write("t\n", to: theirs)
        XCTAssertEqual(try String(contentsOfFile: theirs + ".partial", encoding: .utf8), "someone else's\n")
    }

    func testAFailedWriteRemovesOnlyItsOwnTemporary() throws {
        let out = dir.file("out.txt")
        let handle = try OutputFile.open(out)
        let temporary = try XCTUnwrap(handle.temporaryPath)
        XCTAssertTrue(TemporaryFiles.isRegistered(temporary), "a signal would remove it")
        handle.abandon()
        XCTAssertFalse(FileManager.default.fileExists(atPath: temporary))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        XCTAssertFalse(TemporaryFiles.isRegistered(temporary))
    }

    func testDirectoriesSocketsAndBlockDevicesAreRefusedBeforeAnythingRuns() throws {
        XCTAssertThrowsError(try OutputPathCheck.writable(dir.path, what: "--report")) { error in
            XCTAssertEqual((error as? RederiveError)?.exitStatus, .usage)
        }
        let socketPath = dir.file("s.sock")
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in socketPath.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertThrowsError(try OutputPathCheck.writable(socketPath, what: "--metrics-file")) { error in
            XCTAssertEqual((error as? RederiveError)?.exitStatus, .usage)
            XCTAssertTrue("\(error)".contains("is a socket"), "\(error)")
        }
        XCTAssertNoThrow(try OutputPathCheck.writable("/dev/null", what: "--report"))
    }

    func testAnOutputIsNeverTheStoreItsSideFilesOrAnInputHoweverSpelled() throws {
        let store = dir.file("s.sqlite")
        try SQLiteStore(path: store).close()
        let input = dir.file("in.jsonl")
        try "{}\n".write(toFile: input, atomically: false, encoding: .utf8)
        XCTAssertEqual(symlink(store, dir.file("link.sqlite")), 0)
        let cwd = FileManager.default.currentDirectoryPath
        FileManager.default.changeCurrentDirectoryPath(dir.path)
        defer { FileManager.default.changeCurrentDirectoryPath(cwd) }
        for (output, expected) in [
            (store, "is the store"), ("./s.sqlite", "is the store"), ("link.sqlite", "is the store"),
            ("sub/../s.sqlite", "is the store"), (store + "-wal", "-wal file"), ("s.sqlite-shm", "-shm file"),
            ("./s.sqlite.lock", "run lock"), (dir.path + "/./in.jsonl", "is an input"),
        ] {
            XCTAssertThrowsError(
                try OutputPathCheck.distinct([("--report", output)], store: "s.sqlite", inputs: [input]), output
            ) { error in
                XCTAssertEqual((error as? RederiveError)?.exitStatus, .usage, output)
                XCTAssertTrue("\(error)".contains(expected), "\(output): \(error)")
            }
        }
        // A store that does not exist yet is compared by its resolved path.
        XCTAssertThrowsError(
            try OutputPathCheck.distinct([("--report", "x/../new.sqlite")], store: dir.file("new.sqlite")))
        XCTAssertNoThrow(
            try OutputPathCheck.distinct(
                [("--report", "r.jsonl"), ("--metrics-file", "/dev/null")], store: "s.sqlite", inputs: [input]))
        XCTAssertNoThrow(try OutputPathCheck.distinct([("--report", "s.sqlite")], store: "postgres://u@h/db"))
    }
}
