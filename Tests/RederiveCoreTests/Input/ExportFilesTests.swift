import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// Which paths are read (issue 8, points 4, 5 and 14; issue 10, point 3): missing paths and
/// non-regular files are refused before anything is opened, directories report what they
/// leave out, and an input set without exports is an error.
final class ExportFilesTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private func usageMessage(_ paths: [String], file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            _ = try ExportFiles.scan(paths)
            XCTFail("expected a usage error for \(paths)", file: file, line: line)
        } catch {
            guard case .usage(let message) = error else {
                XCTFail("expected a usage error, got \(error)", file: file, line: line)
                return nil
            }
            return message
        }
        return nil
    }

    private func touch(_ name: String) -> String {
        let path = dir.file(name)
        FileManager.default.createFile(atPath: path, contents: Data("{}\n".utf8))
        return path
    }

    func testMissingPathIsAUsageError() throws {
        let message = try XCTUnwrap(usageMessage([dir.file("typo.jsonl.zst")]))
        XCTAssertTrue(message.contains("typo.jsonl.zst: no such file or directory"), message)
        _ = touch("good.jsonl")
        XCTAssertNotNil(usageMessage([dir.file("good.jsonl"), dir.file("missing-dir/x.jsonl")]))
    }

    func testFIFOGivenDirectlyIsRefusedWithoutOpeningIt() throws {
        let fifo = dir.file("f.jsonl")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let message = try XCTUnwrap(usageMessage([fifo]))
        XCTAssertTrue(message.contains("a FIFO, not a regular file"), message)
        XCTAssertNotNil(usageMessage(["/dev/null"]), "a device is no export either")
    }

    func testFIFOInsideADirectoryIsListedForTheReaderToRefuse() throws {
        let good = touch("good.jsonl")
        let fifo = dir.file("pipe.jsonl.zst")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        XCTAssertEqual(try ExportFiles.scan([dir.path]).files, [good, fifo])
        // The reader refuses it from its stat: this returns at once instead of blocking.
        XCTAssertThrowsError(try ExportReader(path: fifo)) { error in
            let e = error as? ExportReadError
            XCTAssertEqual(e?.code, .fileUnreadable)
            XCTAssertTrue(e?.message.contains("a FIFO") ?? false, "\(String(describing: e))")
        }
        XCTAssertNil(FileHasher.hash(path: fifo), "hashing (skip-imported-files) must not open it either")
    }

    func testNoExportsAtAllIsAUsageError() throws {
        let empty = dir.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        XCTAssertTrue(try XCTUnwrap(usageMessage([empty])).contains("no export files"))
        _ = touch("notes.txt")
        let message = try XCTUnwrap(usageMessage([dir.path]))
        XCTAssertTrue(message.contains("no export files") && message.contains("notes.txt"), message)
    }

    func testFilesThatAreNotExportsAreReportedWithTheReason() throws {
        let good = touch("good.jsonl")
        for name in ["a.ndjson", "b.JSONL", "c.json", "d.jsonl.gz", "e.Jsonl.ZST"] { _ = touch(name) }
        let resolution = try ExportFiles.scan([dir.path])
        XCTAssertEqual(resolution.files, [good])
        let reasons = Dictionary(
            uniqueKeysWithValues: resolution.ignored.map { (($0.path as NSString).lastPathComponent, $0.reason) })
        XCTAssertEqual(Set(reasons.keys), ["a.ndjson", "b.JSONL", "c.json", "d.jsonl.gz", "e.Jsonl.ZST"])
        XCTAssertTrue(reasons["b.JSONL"]!.contains("case-sensitive"), reasons["b.JSONL"]!)
        XCTAssertTrue(reasons["e.Jsonl.ZST"]!.contains("case-sensitive"))
        XCTAssertTrue(reasons["d.jsonl.gz"]!.contains("only zstd"), reasons["d.jsonl.gz"]!)
        XCTAssertTrue(reasons["a.ndjson"]!.contains("not an export name"))
    }

    func testEmptyZstdFileIsADamagedFrame() throws {
        let empty = dir.file("empty.jsonl.zst")
        FileManager.default.createFile(atPath: empty, contents: Data())
        let reader = try ExportReader(path: empty)
        XCTAssertNil(reader.nextLine())
        XCTAssertEqual(reader.fault?.code, .damagedFrame)
        // An empty plain export is just empty.
        let plain = dir.file("empty.jsonl")
        FileManager.default.createFile(atPath: plain, contents: Data())
        let plainReader = try ExportReader(path: plain)
        XCTAssertNil(plainReader.nextLine())
        XCTAssertNil(plainReader.fault)
    }

    func testDefaultLineLimitKeepsOneRecordWithinTheMemoryCeiling() throws {
        // 250 MB lines were accepted (1.28 GB resident to derive): the default is now 48 MiB.
        XCTAssertEqual(ExportReader.defaultMaxLineBytes, 48 << 20)
        let path = dir.file("long.jsonl")
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let block = Data(repeating: 0x20, count: 1 << 20)
        handle.write(Data("{\"pad\":\"".utf8))
        for _ in 0..<(ExportReader.defaultMaxLineBytes >> 20) { handle.write(block) }
        handle.write(Data("\"}\n{}\n".utf8))
        try handle.close()
        let reader = try ExportReader(path: path)
        let first = try XCTUnwrap(reader.nextLine())
        XCTAssertTrue(first.oversized)
        XCTAssertEqual(reader.nextLine()?.bytes, Array("{}".utf8))
    }
}
