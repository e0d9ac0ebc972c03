import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// Security review 2026-11-27 (S01, S02, S09, S14): the name itself decides, never what a
/// link planted at it points to; inherited descriptors are written as the shell opened them.
final class OutputFileLinkTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func fileType(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    // S01: a link at the final name that points to a FIFO or a character device is replaced,
    // and nothing reaches the FIFO or device.
    func testALinkToAFIFOOrDeviceIsReplacedNeverWrittenThrough() throws {
        let fifo = dir.file("fifo")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        var targets = [fifo]
        let device = dir.file("null")
        if mknod(device, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 { targets.append(device) }
        for (index, target) in targets.enumerated() {
            for writer in ["whole file", "zstd writer"] {
                let out = dir.file("out\(index)-\(writer.count).jsonl")
                XCTAssertEqual(symlink(target, out), 0)
                XCTAssertEqual(try OutputFile.target(of: out, what: "--report"), .replaceable)
                let reader = target == fifo ? FIFOReader(fifo) : nil
                if writer == "whole file" {
                    try OutputFile.write("report\n", to: out)
                } else {
                    let w = try ZstdWriter(path: out)
                    try w.write("report\n")
                    try w.finish()
                }
                XCTAssertEqual(reader?.release().count ?? 0, 0, "\(out): nothing was written into the FIFO")
                XCTAssertEqual(fileType(out), S_IFREG, "\(out): the link was replaced by the output")
            }
            XCTAssertEqual(fileType(target), target == fifo ? S_IFIFO : S_IFCHR)
        }
        // The checks before a run agree: the link's folder counts, not what it points to.
        let link = dir.file("m.prom")
        XCTAssertEqual(symlink("/dev/null", link), 0)
        XCTAssertNoThrow(try OutputPathCheck.writable(link, what: "--metrics-file"))
        XCTAssertEqual(try OutputFile.target(of: link, what: "--metrics-file"), .replaceable)
    }

    // S01: a FIFO swapped in for a link after the check is not written through either: the
    // stream is opened with O_NOFOLLOW and checked on its descriptor.
    func testAStreamOpenDoesNotFollowALinkSwappedInAfterTheCheck() throws {
        let fifo = dir.file("fifo"), name = dir.file("named")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        XCTAssertEqual(mkfifo(name, 0o644), 0)
        XCTAssertEqual(try OutputFile.target(of: name, what: "--report"), .stream)
        XCTAssertEqual(unlink(name), 0)
        XCTAssertEqual(symlink(fifo, name), 0)
        // open() looks again: now a link, so it is replaced.
        let reader = FIFOReader(fifo)
        try OutputFile.write("x\n", to: name)
        XCTAssertEqual(reader.release().count, 0)
        XCTAssertEqual(fileType(name), S_IFREG)
    }

    // S09: /dev/stdout, /dev/fd/N and `-` write through the inherited descriptor, so a log
    // opened for appending is appended to, never overwritten from its start.
    func testInheritedDescriptorsAreWrittenAtTheirOwnOffset() throws {
        XCTAssertEqual(OutputFile.inheritedDescriptor("-"), 1)
        XCTAssertEqual(OutputFile.inheritedDescriptor("/dev/stdout"), 1)
        XCTAssertEqual(OutputFile.inheritedDescriptor("/dev/stderr"), 2)
        XCTAssertEqual(OutputFile.inheritedDescriptor("/dev/fd/7"), 7)
        XCTAssertEqual(OutputFile.inheritedDescriptor("/proc/self/fd/12"), 12)
        for path in ["/dev/fd/", "/dev/fd/1/x", "/dev/fd/-1", "/dev/stdoutx", "/proc/self/fd/3a", "/dev/null"] {
            XCTAssertNil(OutputFile.inheritedDescriptor(path), path)
        }
        let log = dir.file("cron.log")
        try "PREVIOUS NIGHT 1\nPREVIOUS NIGHT 2\n".write(toFile: log, atomically: false, encoding: .utf8)
        let fd = open(log, O_WRONLY | O_APPEND)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        try OutputFile.write("REPORT\n", to: "/dev/fd/\(fd)")
        try OutputFile.write("MORE\n", to: "/proc/self/fd/\(fd)")
        XCTAssertEqual(
            try String(contentsOfFile: log, encoding: .utf8), "PREVIOUS NIGHT 1\nPREVIOUS NIGHT 2\nREPORT\nMORE\n")
        // A descriptor open only for reading is refused before anything runs.
        let readOnly = open(log, O_RDONLY)
        defer { close(readOnly) }
        XCTAssertThrowsError(try OutputPathCheck.writable("/dev/fd/\(readOnly)", what: "--report"))
    }

    // S02: a link planted at an output folder's name is refused, never followed; a real
    // folder is created or reused, and files are written inside the folder that was opened.
    func testAnOutputFolderIsNeverALink() throws {
        let elsewhere = dir.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let planted = dir.file("s.sqlite-preview")
        XCTAssertEqual(symlink(elsewhere, planted), 0)
        XCTAssertThrowsError(try OutputPathCheck.writableFolder(planted, what: "--preview-out")) { error in
            XCTAssertTrue("\(error)".contains("symbolic link"), "\(error)")
        }
        XCTAssertThrowsError(try OutputFolder(planted, what: "--preview-out"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere), [])

        let real = dir.file("new/pv")
        let folder = try OutputFolder(real, what: "--preview-out")
        // The folder is swapped for a link after it was opened: writes still land in it.
        let moved = dir.file("moved")
        XCTAssertEqual(rename(real, moved), 0)
        XCTAssertEqual(symlink(elsewhere, real), 0)
        try OutputFile.write("x\n", to: folder.writePath("preview.md"), shownAs: folder.shownPath("preview.md"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: moved), ["preview.md"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere), [])
        XCTAssertEqual(folder.shownPath("preview.md"), real + "/preview.md")
    }

    // S14: two outputs of one command naming one file are refused; streams may be shared.
    func testTwoOutputsNamingOneFileAreRefused() throws {
        let cwd = FileManager.default.currentDirectoryPath
        FileManager.default.changeCurrentDirectoryPath(dir.path)
        defer { FileManager.default.changeCurrentDirectoryPath(cwd) }
        XCTAssertThrowsError(
            try OutputPathCheck.distinct([("--report", "r.jsonl"), ("--metrics-file", "./r.jsonl")], store: nil)
        ) { error in
            XCTAssertTrue("\(error)".contains("also the --report output"), "\(error)")
        }
        try "x".write(toFile: dir.file("r.jsonl"), atomically: false, encoding: .utf8)
        XCTAssertEqual(link("r.jsonl", "hard.jsonl"), 0)
        XCTAssertThrowsError(
            try OutputPathCheck.distinct([("--report", "r.jsonl"), ("--out", "hard.jsonl")], store: "s.sqlite"))
        XCTAssertNoThrow(
            try OutputPathCheck.distinct(
                [("--report", "/dev/null"), ("--metrics-file", "/dev/null"), ("--out", "-"), ("--plan", "-")],
                store: "s.sqlite"))
    }
}
