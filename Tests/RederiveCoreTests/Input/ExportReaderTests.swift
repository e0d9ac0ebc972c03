import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// Streaming lines from plain and (multi-frame) zstd exports, and the file-level faults.
final class ExportReaderTests: XCTestCase {
    private var dir: TemporaryDirectory!

    override func setUpWithError() throws { dir = try TemporaryDirectory() }
    override func tearDown() { dir = nil }

    private struct ReadResult {
        var lines: [ExportLine]
        var fault: ExportReadError?
        var texts: [String] { lines.map { String(decoding: $0.bytes, as: UTF8.self) } }
        var numbers: [Int] { lines.map(\.number) }
    }

    private func readAll(_ path: String, maxLineBytes: Int = 256 << 20) throws -> ReadResult {
        let reader = try ExportReader(path: path, maxLineBytes: maxLineBytes)
        var lines: [ExportLine] = []
        while let line = reader.nextLine() { lines.append(line) }
        XCTAssertNil(reader.nextLine(), "the reader stays at its end")
        return ReadResult(lines: lines, fault: reader.fault)
    }

    private func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
    private func put(_ bytes: [UInt8], _ path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    /// Distinct, realistic-looking lines (a record-ish JSON object of about `size` bytes each).
    private func makeLines(_ count: Int, size: Int = 300) -> [String] {
        (0..<count).map { i in
            let pad = String(repeating: String(UnicodeScalar(UInt8(97 + i % 26))), count: max(0, size - 40))
            return "{\"n\":\(i),\"pad\":\"\(pad)\",\"k\":\(i &* 2_654_435_761 % 1_000_003)}"
        }
    }

    // MARK: Lines

    private let tricky = "{\"a\":1}\n\n   \n{\"b\":2}\r\n\t\n{\"c\":3}\r\n\r\nlast-without-newline"

    func testPlainLinesNumbersBlankLinesCRLFAndFinalLine() throws {
        let path = dir.file("t.jsonl")
        try put(Array(tricky.utf8), path)
        let r = try readAll(path)
        XCTAssertNil(r.fault)
        XCTAssertEqual(r.texts, ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}", "last-without-newline"])
        XCTAssertEqual(r.numbers, [1, 4, 6, 8], "1-based, blank lines counted but not returned")
        XCTAssertFalse(r.lines.contains { $0.oversized })
    }

    func testZstdGivesTheSameLinesAsPlain() throws {
        let plain = dir.file("t.jsonl"), zst = dir.file("t.jsonl.zst")
        let text = tricky + "\n" + makeLines(5000).joined(separator: "\n") + "\r\n"
        try ExportFixtures.write(Array(text.utf8), to: plain)
        try ExportFixtures.write(Array(text.utf8), to: zst)
        XCTAssertNotEqual(try bytes(plain), try bytes(zst), "the .zst file is really compressed")
        let a = try readAll(plain), b = try readAll(zst)
        XCTAssertNil(a.fault)
        XCTAssertNil(b.fault)
        XCTAssertEqual(a.lines.count, 5004)
        XCTAssertEqual(a.texts, b.texts)
        XCTAssertEqual(a.numbers, b.numbers)
        XCTAssertEqual(b.numbers.last, 5008)
        XCTAssertEqual(b.texts.last, makeLines(5000).last)
    }

    func testZstdEmptyFileHasNoLinesAndNoFault() throws {
        let zst = dir.file("empty.jsonl.zst")
        try ExportFixtures.write([], to: zst)
        let r = try readAll(zst)
        XCTAssertEqual(r.lines.count, 0)
        XCTAssertNil(r.fault)
    }

    func testMultiFrameZstdReadsEveryFrame() throws {
        // Frame boundaries fall inside a line and between lines: frames form one stream.
        let a = dir.file("a.jsonl.zst"), b = dir.file("b.jsonl.zst"), c = dir.file("c.jsonl.zst")
        let joined = dir.file("joined.jsonl.zst")
        try ExportFixtures.write(Array("{\"f\":1}\n{\"f\":2}\n{\"split\":".utf8), to: a)
        try ExportFixtures.write(Array("3}\n\n{\"f\":4}\n".utf8), to: b)
        let many = makeLines(3000)
        try ExportFixtures.write(Array(many.map { $0 + "\n" }.joined().utf8), to: c)
        try put(try bytes(a) + bytes(b) + bytes(c), joined)
        let r = try readAll(joined)
        XCTAssertNil(r.fault)
        XCTAssertEqual(Array(r.texts.prefix(4)), ["{\"f\":1}", "{\"f\":2}", "{\"split\":3}", "{\"f\":4}"])
        XCTAssertEqual(Array(r.numbers.prefix(4)), [1, 2, 3, 5])
        XCTAssertEqual(Array(r.texts.dropFirst(4)), many)
        XCTAssertEqual(r.numbers.last, 5 + 3000)
    }

    // MARK: Faults

    func testTruncatedZstdKeepsCompleteLinesAndReportsTheFileSize() throws {
        let full = dir.file("full.jsonl.zst"), cut = dir.file("cut.jsonl.zst")
        let lines = makeLines(20000)  // about 6 MB decompressed: many blocks
        try ExportFixtures.write(lines: lines, to: full)
        let whole = try bytes(full)
        let kept = Array(whole.prefix(whole.count * 2 / 3))
        try put(kept, cut)
        let r = try readAll(cut)
        XCTAssertEqual(r.fault?.code, "truncated_frame")
        XCTAssertEqual(r.fault?.byteOffset, Int64(kept.count))
        XCTAssertEqual(r.fault?.path, cut)
        XCTAssertGreaterThan(r.lines.count, 0)
        XCTAssertLessThan(r.lines.count, lines.count)
        XCTAssertEqual(r.texts, Array(lines.prefix(r.lines.count)), "only complete lines, in order, before the fault")
        XCTAssertEqual(r.numbers, Array(1...r.lines.count))
    }

    func testTruncatedSecondFrameKeepsTheFirstFrame() throws {
        let a = dir.file("a.jsonl.zst"), b = dir.file("b.jsonl.zst"), joined = dir.file("j.jsonl.zst")
        try ExportFixtures.write(lines: ["{\"a\":1}", "{\"a\":2}"], to: a)
        try ExportFixtures.write(lines: makeLines(100), to: b)
        let joinedBytes = try bytes(a) + Array(try bytes(b).dropLast(3))
        try put(joinedBytes, joined)
        let r = try readAll(joined)
        XCTAssertEqual(r.fault?.code, "truncated_frame")
        XCTAssertEqual(r.fault?.byteOffset, Int64(joinedBytes.count))
        XCTAssertEqual(Array(r.texts.prefix(2)), ["{\"a\":1}", "{\"a\":2}"])
    }

    /// Offsets of the block headers of the single frame in `frame` (zstd format, RFC 8878).
    private func blockHeaderOffsets(_ frame: [UInt8]) -> [Int] {
        precondition(Array(frame.prefix(4)) == [0x28, 0xB5, 0x2F, 0xFD], "zstd magic")
        let fhd = frame[4]
        let fcsFlag = Int(fhd >> 6), singleSegment = (fhd >> 5) & 1 == 1, didFlag = Int(fhd & 3)
        var pos = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][didFlag]
        pos += [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag]
        var offsets: [Int] = []
        while pos + 3 <= frame.count {
            offsets.append(pos)
            let header = Int(frame[pos]) | Int(frame[pos + 1]) << 8 | Int(frame[pos + 2]) << 16
            let last = header & 1 == 1, type = (header >> 1) & 3, size = header >> 3
            pos += 3 + (type == 1 ? 1 : size)  // RLE blocks hold one byte
            if last { break }
        }
        return offsets
    }

    /// A 20,000-line compressed export whose bytes `damage` alters (given the offsets of its
    /// block headers), read back: its lines, what the reader made of it and its size.
    private func readDamaged(
        _ damage: (inout [UInt8], [Int]) -> Void
    ) throws -> (lines: [String], read: ReadResult, size: Int) {
        let good = dir.file("good.jsonl.zst"), bad = dir.file("bad.jsonl.zst")
        let lines = makeLines(20000)
        try ExportFixtures.write(lines: lines, to: good)
        var data = try bytes(good)
        let blocks = blockHeaderOffsets(data)
        XCTAssertGreaterThan(blocks.count, 4, "test data spans several blocks")
        damage(&data, blocks)
        try put(data, bad)
        return (lines, try readAll(bad), data.count)
    }

    func testDamagedFrameInTheMiddleIsReportedAsDamaged() throws {
        // Flip the block-type bits of a block in the middle to the reserved type 3.
        let (lines, r, size) = try readDamaged { data, blocks in data[blocks[blocks.count / 2]] |= 0b110 }
        XCTAssertEqual(r.fault?.code, "damaged_frame")
        let offset = try XCTUnwrap(r.fault?.byteOffset)
        XCTAssertGreaterThan(offset, 0)
        XCTAssertLessThan(offset, Int64(size))
        XCTAssertGreaterThan(r.lines.count, 0)
        XCTAssertLessThan(r.lines.count, lines.count)
        XCTAssertEqual(r.texts, Array(lines.prefix(r.lines.count)), "complete lines before the damage are kept")
    }

    func testDamagedBytesInTheMiddleOfACompressedBlock() throws {
        // Overwrite the start of a compressed block's body (its literals/sequence headers).
        let (lines, r, _) = try readDamaged { data, blocks in
            let target = blocks[blocks.count / 2] + 3
            for i in 0..<16 { data[target + i] = 0xFF }
        }
        XCTAssertEqual(r.fault?.code, "damaged_frame")
        XCTAssertEqual(r.texts, Array(lines.prefix(r.lines.count)))
    }

    // MARK: Content hash (the file's identity: the bytes read)

    /// Reads `path` to its end: the lines read, the fault and the reader's hash.
    private func readHashing(
        _ path: String, _ hashing: ExportReader.Hashing = .asRead
    ) throws -> (lines: [String], fault: String?, hash: String?) {
        let reader = try ExportReader(path: path, hashing: hashing)
        var lines: [String] = []
        while let line = reader.nextLine() { lines.append(String(decoding: line.bytes, as: UTF8.self)) }
        return (lines, reader.fault?.code.rawValue, reader.contentHash)
    }

    private func sha256(_ path: String) throws -> String {
        var hash = SHA256()
        hash.update(try bytes(path))
        return hash.hex
    }

    func testContentHashIsTheWholeFilesSHA256PlainZstdAndAfterAFault() throws {
        let plain = dir.file("t.jsonl"), zst = dir.file("t.jsonl.zst")
        let lines = makeLines(5000)
        try ExportFixtures.write(lines: lines, to: plain)
        try ExportFixtures.write(lines: lines, to: zst)
        for path in [plain, zst] {
            let read = try readHashing(path)
            XCTAssertEqual(read.lines, lines)
            XCTAssertEqual(read.hash, try sha256(path), path)
            XCTAssertEqual(read.hash, FileHasher.hash(path: path), "the check before reading uses the same digest")
        }
        // Damaged in the middle: reading stops there, the rest is still read for the hash, so
        // the fault is recorded under the whole file's bytes.
        _ = try readDamaged { data, blocks in data[blocks[blocks.count / 2]] |= 0b110 }
        let damaged = try readHashing(dir.file("bad.jsonl.zst"))
        XCTAssertEqual(damaged.fault, "damaged_frame")
        XCTAssertEqual(damaged.hash, try sha256(dir.file("bad.jsonl.zst")))
        XCTAssertNil(try ExportReader(path: plain).contentHash, "no hash unless asked for")
    }

    /// The review's S06 race at its root: the name is replaced after the reader opened it. The
    /// hash is of what this reader read (the old bytes), not of what the name now holds.
    func testContentHashIsOfTheBytesReadWhenTheNameIsReplacedMeanwhile() throws {
        let path = dir.file("export.jsonl"), other = dir.file("other.jsonl")
        try ExportFixtures.write(lines: makeLines(3000), to: path)
        let original = try sha256(path)
        let reader = try ExportReader(path: path, hashing: .asRead)
        try ExportFixtures.write(lines: ["{\"replaced\":true}"], to: other)
        XCTAssertEqual(rename(other, path), 0)
        var count = 0
        while reader.nextLine() != nil { count += 1 }
        XCTAssertEqual(count, 3000)
        XCTAssertEqual(reader.contentHash, original)
        XCTAssertNotEqual(FileHasher.hash(path: path), original)
    }

    /// `afterFault` hashes only a file that faults, all of it, through the descriptor it read:
    /// a good file replaced by a truncated one after the open changes nothing.
    func testAfterFaultHashesOnlyAFaultedFileThroughItsOwnDescriptor() throws {
        let good = dir.file("good.jsonl.zst"), truncated = dir.file("truncated.jsonl.zst")
        try ExportFixtures.write(lines: makeLines(3000), to: good)
        try put(Array(try bytes(good).prefix(2000)), truncated)
        XCTAssertNil(try readHashing(good, .afterFault).hash, "a clean file is not hashed")
        let faulted = try readHashing(truncated, .afterFault)
        XCTAssertEqual(faulted.fault, "truncated_frame")
        XCTAssertEqual(faulted.hash, try sha256(truncated))

        let bytesThatFault = try sha256(truncated)
        let reader = try ExportReader(path: truncated, hashing: .afterFault)
        XCTAssertEqual(rename(good, truncated), 0)
        while reader.nextLine() != nil {}
        XCTAssertEqual(reader.fault?.code, "truncated_frame")
        XCTAssertEqual(reader.contentHash, bytesThatFault)
    }

    func testNotZstdDataNamedZstIsDamagedAtOffsetZero() throws {
        let path = dir.file("plain-text.jsonl.zst")
        try put(Array("{\"roomName\":\"Bedroom\"}\n{\"roomName\":\"Kitchen\"}\n".utf8), path)
        let r = try readAll(path)
        XCTAssertEqual(r.lines.count, 0)
        XCTAssertEqual(r.fault?.code, "damaged_frame")
        XCTAssertEqual(r.fault?.byteOffset, 0)
    }

    func testMissingFileIsUnreadable() {
        let path = dir.file("missing.jsonl")
        XCTAssertThrowsError(try ExportReader(path: path)) { error in
            let e = error as? ExportReadError
            XCTAssertEqual(e?.code, "file_unreadable")
            XCTAssertEqual(e?.path, path)
            XCTAssertEqual(e?.byteOffset, 0)
        }
    }

    func testOtherNamesAreUnsupported() throws {
        for name in ["data.json", "data.zst", "data.jsonl.gz", "data.jsonl.zst.bak"] {
            let path = dir.file(name)
            try put(Array("{}\n".utf8), path)
            XCTAssertThrowsError(try ExportReader(path: path), name) { error in
                XCTAssertEqual((error as? ExportReadError)?.code, "unsupported_file_type", name)
            }
        }
    }

    // MARK: Oversized lines

    func testOversizedLineIsFlaggedAndTheNextLineIsStillRead() throws {
        for name in ["o.jsonl", "o.jsonl.zst"] {
            let path = dir.file(name)
            let long = String(repeating: "x", count: 500)
            try ExportFixtures.write(Array("{\"a\":1}\n\(long)\n{\"b\":2}\n\(long)".utf8), to: path)
            let r = try readAll(path, maxLineBytes: 100)
            XCTAssertNil(r.fault, name)
            XCTAssertEqual(r.numbers, [1, 2, 3, 4], name)
            XCTAssertEqual(r.lines.map(\.oversized), [false, true, false, true], name)
            XCTAssertEqual(r.lines[1].bytes, [], name)
            XCTAssertEqual(r.texts[2], "{\"b\":2}", name)
        }
    }

    func testOversizedLineSpanningChunksIsFlagged() throws {
        // 3 MB line: spans several 1 MB read/decompression chunks.
        for name in ["big.jsonl", "big.jsonl.zst"] {
            let path = dir.file(name)
            let long = [UInt8](repeating: UInt8(ascii: "y"), count: 3 << 20)
            try ExportFixtures.write(Array("{\"a\":1}\n".utf8) + long + Array("\n{\"b\":2}\n".utf8), to: path)
            let r = try readAll(path, maxLineBytes: 1 << 20)
            XCTAssertEqual(r.lines.map(\.oversized), [false, true, false], name)
            XCTAssertEqual(r.texts[2], "{\"b\":2}", name)
            XCTAssertEqual(r.numbers, [1, 2, 3], name)
            // Under a larger limit the same line comes back whole.
            let whole = try readAll(path, maxLineBytes: 4 << 20)
            XCTAssertEqual(whole.lines.map(\.oversized), [false, false, false], name)
            XCTAssertEqual(whole.lines[1].bytes.count, long.count, name)
        }
    }

    func testLinesKeepPaddingCapacityForTheParser() throws {
        let path = dir.file("p.jsonl")
        try put(Array("{\"a\":1}\n{\"b\":2}".utf8), path)
        let r = try readAll(path)
        for line in r.lines { line.withPaddedBytes { XCTAssertGreaterThanOrEqual($1, $0.count + 64) } }
    }

    /// Lines are spans of the reader's buffers: those a caller keeps stay intact while the reader
    /// decodes on, into the same buffer or a new one, and those it drops let the reader reuse
    /// the buffer (or a spare one). Lines of 1 byte to 300 KB cross many 1 MB buffers.
    func testLinesStayIntactWhetherKeptOrDropped() throws {
        var expected: [String] = []
        var data: [UInt8] = []
        for i in 0..<60 {
            let text =
                "{\"n\":\(i),\"f\":\"" + String(repeating: Array("abcdefghij")[i % 10], count: (i * 7919) % 300_000)
                + "\"}"
            expected.append(text)
            data += Array(text.utf8) + [0x0A]
        }
        for name in ["s.jsonl", "s.jsonl.zst"] {
            let path = dir.file(name)
            try ExportFixtures.write(data, to: path)
            let kept = try readAll(path)
            XCTAssertEqual(kept.texts, expected, name)
            for line in kept.lines { line.withPaddedBytes { XCTAssertGreaterThanOrEqual($1, $0.count + 64, name) } }
            let reader = try ExportReader(path: path)
            var dropped: [String] = []
            while let line = reader.nextLine() { dropped.append(String(decoding: line.bytes, as: UTF8.self)) }
            XCTAssertEqual(dropped, expected, name)
            // In batches: a buffer a batch held is reused once the batch is gone.
            let batches = try ExportReader(path: path)
            var batched: [String] = []
            while case let lines = batches.nextLines(maxLines: 5, maxBytes: 1 << 30), !lines.isEmpty {
                batched += lines.map { String(decoding: $0.bytes, as: UTF8.self) }
            }
            XCTAssertEqual(batched, expected, name)
        }
    }

    // MARK: Bounded memory

    private func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024  // kilobytes on Linux
    }

    func testLargeStreamIsReadInBoundedMemory() throws {
        let path = dir.file("large.jsonl.zst")
        let lineCount = 100_000
        let template = Array(
            try ExportFixtures.v1Line(name: "Hallway", timestamp: 1, room: try ExportFixtures.compactRoom("Hallway2"))
                .prefix(1990).utf8)
        let writer = try ZstdWriter(path: path, level: 1)
        var expectedBytes: Int64 = 0
        for i in 0..<lineCount {
            let line = Array("\(i):".utf8) + template + [0x0A]
            expectedBytes += Int64(line.count)
            try writer.write(line)
        }
        try writer.finish()
        XCTAssertGreaterThan(expectedBytes, 190_000_000)

        let before = peakResidentBytes()
        let reader = try ExportReader(path: path)
        var count = 0, last = 0
        while let line = reader.nextLine() {
            count += 1
            last = line.number
        }
        XCTAssertNil(reader.fault)
        XCTAssertEqual(count, lineCount)
        XCTAssertEqual(last, lineCount)
        XCTAssertEqual(reader.decodedBytes, expectedBytes)
        XCTAssertEqual(reader.fileBytes, Int64(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int))
        // Holding the stream would raise the peak by ~200 MB; streaming needs a few MB.
        XCTAssertLessThan(peakResidentBytes() - before, 64 << 20)
    }

    // MARK: Export file lists

    func testExportFilesExpandsDirectoriesSortedAndRefusesOtherNames() throws {
        let sub = dir.url.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        for name in ["b.jsonl", "a.jsonl.zst", "notes.txt", "sub/c.jsonl", "data.json"] {
            try put([], dir.file(name))
        }
        let files = try ExportFiles.resolve([dir.path, dir.file("b.jsonl")])
        XCTAssertEqual(files, [dir.file("a.jsonl.zst"), dir.file("b.jsonl"), dir.file("sub/c.jsonl")])
        XCTAssertThrowsError(try ExportFiles.resolve([dir.file("data.json")])) { error in
            guard case .usage(let message)? = error as? RederiveError else {
                return XCTFail("expected usage, got \(error)")
            }
            XCTAssertTrue(message.contains("data.json"))
        }
    }

    func testExportFileKind() {
        XCTAssertEqual(ExportFileKind(path: "x/a.jsonl"), .plain)
        XCTAssertEqual(ExportFileKind(path: "a.jsonl.zst"), .zstd)
        XCTAssertNil(ExportFileKind(path: "a.json"))
        XCTAssertNil(ExportFileKind(path: "a.zst"))
    }
}
