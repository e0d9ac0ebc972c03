import CZstd
import Foundation
import RederiveCore
import RederiveCorpus
import XCTest

/// The generator's record formats (v1, v2, v3, timestamps) and its zstd framing.
extension CorpusGeneratorTests {
    // MARK: - Formats

    func testV1RecordsHaveNoIdAndABase64RoomThatDecodes() throws {
        var o = options(records: 10, seed: 2)
        o.formatMix = try CorpusGenerator.FormatMix(versions: [1])
        let (path, stats) = try generate("v1.jsonl", o)
        XCTAssertEqual(stats.goodByVersion, [1: 10])
        for line in try plainLines(path) {
            let record = try object(line)
            XCTAssertNil(record["id"])
            XCTAssertNil(record["formatVersion"])
            XCTAssertEqual(
                Set(record.keys),
                [
                    "roomName", "timestamp", "fullRoomDataJSON", "summaryJSON",
                    "floorAreaSqM", "ceilingHeightM", "wallCount", "objectCount",
                ])
            XCTAssertEqual(record["floorAreaSqM"] as? Double, 0)
            // Seconds since 2001-01-01, somewhere in 2023-2026.
            let timestamp = try XCTUnwrap(record["timestamp"] as? Double)
            XCTAssertTrue((694_224_000.0...820_000_000.0).contains(timestamp), "\(timestamp)")
            let data = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(record["fullRoomDataJSON"] as? String)))
            let room = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            XCTAssertEqual((room["walls"] as? [Any])?.count, record["wallCount"] as? Int)
            XCTAssertEqual((room["objects"] as? [Any])?.count, record["objectCount"] as? Int)
            let summaryData = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(record["summaryJSON"] as? String)))
            let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: summaryData) as? [String: Any])
            XCTAssertEqual(summary["estimated_floor_area_sqm"] as? Double, 0)
        }
    }

    func testV2AndV3Shapes() throws {
        var o = options(records: 20, seed: 6)
        o.formatMix = try CorpusGenerator.FormatMix(versions: [2, 3])
        let (path, stats) = try generate("v23.jsonl", o)
        XCTAssertEqual(stats.goodByVersion, [2: 10, 3: 10])
        let uuid = try NSRegularExpression(
            pattern: "^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$")
        let iso = try NSRegularExpression(
            pattern: "^20(2[3-6])-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z$")
        var ids: Set<String> = []
        for line in try plainLines(path) {
            let record = try object(line)
            let id = try XCTUnwrap(record["id"] as? String)
            let capturedAt = try XCTUnwrap(record["capturedAt"] as? String)
            XCTAssertEqual(uuid.numberOfMatches(in: id, range: NSRange(id.startIndex..., in: id)), 1, id)
            XCTAssertEqual(
                iso.numberOfMatches(in: capturedAt, range: NSRange(capturedAt.startIndex..., in: capturedAt)), 1,
                capturedAt)
            ids.insert(id)
            let summary = try XCTUnwrap(record["summary"] as? [String: Any])
            XCTAssertEqual(summary["estimated_floor_area_sqm"] as? Double, 0)
            if record["formatVersion"] as? Int == 3 {
                XCTAssertNotNil(record["room"] as? [String: Any])
                XCTAssertTrue([0, 1].contains(record["summaryVersion"] as? Int))
                XCTAssertNil(record["fullRoomDataJSON"])
            } else {
                XCTAssertEqual(record["formatVersion"] as? Int, 2)
                XCTAssertNotNil(Data(base64Encoded: try XCTUnwrap(record["fullRoomDataJSON"] as? String)))
                XCTAssertNil(record["room"])
            }
        }
        XCTAssertEqual(ids.count, 20)
    }

    func testISO8601() {
        XCTAssertEqual(CorpusGenerator.iso8601(unixSeconds: 0), "1970-01-01T00:00:00Z")
        XCTAssertEqual(CorpusGenerator.iso8601(unixSeconds: 1_770_714_900), "2026-02-10T09:15:00Z")
        XCTAssertEqual(CorpusGenerator.iso8601(unixSeconds: 951_782_400), "2000-02-29T00:00:00Z")
    }

    // MARK: - zstd

    /// The compressed sizes of the zstd frames in `path`.
    func frameSizes(_ path: String) throws -> [Int] {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var sizes: [Int] = []
        var offset = 0
        while offset < bytes.count {
            let size = bytes.withUnsafeBytes {
                ZSTD_findFrameCompressedSize($0.baseAddress! + offset, bytes.count - offset)
            }
            guard ZSTD_isError(size) == 0 else { throw CorpusGeneratorError(message: "bad frame at \(offset)") }
            sizes.append(size)
            offset += size
        }
        return sizes
    }

    func testFramesEveryMakesAMultiFrameFileTheReaderReadsWhole() throws {
        var o = options(records: 25, seed: 13)
        o.framesEvery = 10
        let (path, stats) = try generate("frames.jsonl.zst", o)
        XCTAssertEqual(stats.frames, 3)
        XCTAssertEqual(try frameSizes(path).count, 3)
        let reader = try ExportReader(path: path)
        var count = 0
        while let line = reader.nextLine() {
            count += 1
            XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(line.bytes)), "line \(line.number)")
        }
        XCTAssertNil(reader.fault)
        XCTAssertEqual(count, 25)
        XCTAssertEqual(reader.decodedBytes, stats.uncompressedBytes)

        o.framesEvery = nil
        let (single, singleStats) = try generate("single.jsonl.zst", o)
        XCTAssertEqual(singleStats.frames, 1)
        XCTAssertEqual(try frameSizes(single).count, 1)
    }

    func testTruncateLastFrameCutsInsideTheLastFrame() throws {
        var o = options(records: 12, seed: 17)
        o.framesEvery = 4
        o.truncateLastFrame = true
        let (path, stats) = try generate("cut.jsonl.zst", o)
        let cut = try XCTUnwrap(stats.truncatedAtByte)
        XCTAssertEqual(Int64(try Data(contentsOf: URL(fileURLWithPath: path)).count), cut)
        XCTAssertThrowsError(try frameSizes(path), "the last frame is incomplete")
        let reader = try ExportReader(path: path)
        var count = 0
        while reader.nextLine() != nil { count += 1 }
        XCTAssertNotNil(reader.fault)
        XCTAssertGreaterThanOrEqual(count, 8, "the two complete frames are readable")
        XCTAssertLessThan(count, 12)
    }
}
