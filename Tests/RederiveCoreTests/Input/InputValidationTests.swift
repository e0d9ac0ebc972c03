import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// Input validation gaps (issue 8, point 11): `capturedAt` checked as ISO 8601, malformed
/// numbers are invalid JSON, duplicate keys are refused at record and room level, a BOM at
/// the start of a file is accepted, and the README's code table is `IssueCode.byStage`.
final class InputValidationTests: XCTestCase {
    private let parser = RecordParser()
    private let uuid = "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90"
    private let tinyRoom = #"{"walls":[{"dimensions":[3,2.5,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,1.5,0,0,1]}]}"#

    private func v3(capturedAt: String = "2026-02-10T09:15:00Z", room: String? = nil) -> [UInt8] {
        Array(
            (#"{"formatVersion":3,"id":"\#(uuid)","roomName":"x","capturedAt":"\#(capturedAt)","#
                + #""room":\#(room ?? tinyRoom)}"#).utf8)
    }

    private func code(
        _ line: [UInt8], file: StaticString = #filePath, line number: UInt = #line
    ) -> (RecordIssue.Stage, IssueCode)? {
        guard let f = parser.parse(line).failureValue(file: file, line: number) else { return nil }
        return (f.stage, f.code)
    }

    // MARK: capturedAt

    func testCapturedAtMustBeAnISO8601DateTime() throws {
        for bad in [
            "not a date", "2026-13-45T99:99:99Z", "2026-02-30T10:00:00Z", "2025-02-29T10:00:00Z", "2026-02-10",
            "2026-02-10 09:15:00Z", "2026-02-10T09:15:00", "2026-02-10T24:00:00Z", "2026-02-10T09:15:00.Z",
            "2026-02-10T09:15:00+5:00", "0000-01-01T00:00:00Z", "", "2026-02-10T09:15:00Zjunk",
        ] {
            XCTAssertFalse(TimestampText.isISO8601DateTime(bad), bad)
            let result = try XCTUnwrap(code(v3(capturedAt: bad)), bad)
            XCTAssertEqual(result.0, .parse, bad)
            XCTAssertEqual(result.1, .invalidTimestamp, bad)
        }
        let v2 = try ExportFixtures.line([
            "formatVersion": 2, "id": uuid, "roomName": "x", "capturedAt": "yesterday",
            "fullRoomDataJSON": ExportFixtures.base64(Array(tinyRoom.utf8)),
        ])
        XCTAssertEqual(code(Array(v2.utf8))?.1, .invalidTimestamp)
    }

    func testISO8601DateTimesAreAccepted() {
        for good in [
            "2026-02-10T09:15:00Z", "2026-02-12T08:00:00.250Z", "2024-02-29T23:59:60Z", "2026-02-10T09:15:00+01:00",
            "2026-02-10t09:15:00z", "0001-01-01T00:00:00-12:30", "9999-12-31T23:59:59.999999999Z",
        ] {
            XCTAssertTrue(TimestampText.isISO8601DateTime(good), good)
            XCTAssertNotNil(parser.parse(v3(capturedAt: good)).successValue(), good)
        }
    }

    // MARK: Numbers

    func testOptionDatesAreRealCalendarDatesGivenInUTCWithMilliseconds() {
        for (text, utc) in [
            ("2026-11-01", "2026-11-01T00:00:00.000Z"), ("2024-02-29", "2024-02-29T00:00:00.000Z"),
            ("2026-11-01T01:30:00+01:00", "2026-11-01T00:30:00.000Z"),
            ("2026-11-01T00:00:00.25Z", "2026-11-01T00:00:00.250Z"),
            ("2026-12-31T23:30:00.123456-01:00", "2027-01-01T00:30:00.123Z"),
            ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"),
        ] {
            XCTAssertEqual(TimestampText.utcMilliseconds(text), utc, text)
            XCTAssertTrue(DeriveSelection.isValidSince(text), text)
        }
        for bad in [
            "2026-02-30", "2025-02-29", "0000-01-01", "2026-01-01' OR 1=1 --", "2026-01-01x", "2026-13-01",
            "2026-01-01T24:00:00Z", "2026-01-01T00:00:00", "0001-01-01T00:00:00+01:00", "", "yesterday",
        ] {
            XCTAssertNil(TimestampText.utcMilliseconds(bad), bad)
            XCTAssertFalse(DeriveSelection.isValidSince(bad), bad)
        }
    }

    func testMalformedNumbersAreInvalidJSONNotNonFinite() throws {
        for bad in ["01", "12.5.3", "1e", "-", "0x10", "1.5e+", "--1", "1true"] {
            let room = tinyRoom.replacingOccurrences(of: "[3,2.5,0]", with: "[3,\(bad),0]")
            XCTAssertEqual(code(v3(room: room))?.1, .invalidJSON, bad)
            XCTAssertEqual(parser.decodeRoom(Array(room.utf8)).failureValue()?.code, .invalidRoomJSON, bad)
        }
        // A line cut in the middle of a number.
        let full = String(decoding: v3(), as: UTF8.self)
        let cut = String(full[..<full.range(of: "2.5")!.lowerBound]) + "2."
        XCTAssertEqual(code(Array(cut.utf8))?.1, .invalidJSON)
        XCTAssertEqual(code(Array((String(full[..<full.range(of: "2.5")!.lowerBound]) + "-").utf8))?.1, .invalidJSON)
        // Number-like text in strings (escaped quotes included) is no number: the 1e999 decides.
        let room = tinyRoom.replacingOccurrences(of: "[3,2.5,0]", with: #"[3,1e999,0],"note":"a\"01 12.5.3""#)
        XCTAssertEqual(code(v3(room: room))?.1, .nonFiniteNumber)
    }

    func testWellFormedNumbersOutOfRangeStayNonFinite() throws {
        for big in ["1e999", "-1e400", "123456789012345678901234567890"] {
            let room = tinyRoom.replacingOccurrences(of: "[3,2.5,0]", with: "[3,\(big),0]")
            XCTAssertEqual(code(v3(room: room))?.1, .nonFiniteNumber, big)
            XCTAssertEqual(parser.decodeRoom(Array(room.utf8)).failureValue()?.code, .nonFiniteNumber, big)
        }
    }

    // MARK: Duplicate keys

    func testDuplicateKeysAreInvalidJSONAtRecordLevel() throws {
        let line = String(decoding: v3(), as: UTF8.self)
        let twiceName = line.replacingOccurrences(of: #""roomName":"x""#, with: #""roomName":"x","roomName":"y""#)
        XCTAssertEqual(code(Array(twiceName.utf8))?.1, .invalidJSON)
        // Escaped spellings of one key are the same key.
        let escaped = line.replacingOccurrences(of: #""roomName":"x""#, with: #""roomName":"x","room\u004eame":"y""#)
        XCTAssertEqual(code(Array(escaped.utf8))?.1, .invalidJSON)
        // Inside the inline room (v3), the summary, or any nested object.
        let walls = tinyRoom.replacingOccurrences(of: "]}", with: #"],"walls":[]}"#)
        XCTAssertEqual(code(v3(room: walls))?.1, .invalidJSON)
        let nested = tinyRoom.replacingOccurrences(of: #""dimensions""#, with: #""x":1,"x":2,"dimensions""#)
        XCTAssertEqual(code(v3(room: nested))?.1, .invalidJSON)
        let failure = try XCTUnwrap(parser.parse(Array(twiceName.utf8)).failureValue())
        XCTAssertTrue(failure.message.contains("duplicate key \"roomName\""), failure.message)
        // Many keys (the sorted path) with one repeated.
        let manyKeys = (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        XCTAssertEqual(parser.parse(Array("{\(manyKeys),\"k7\":0}".utf8)).failureValue()?.code, .invalidJSON)
        XCTAssertEqual(parser.parse(Array("{\(manyKeys)}".utf8)).failureValue()?.code, .missingKey)
    }

    /// Keys are compared by a signature (first 8 bytes and length) before their bytes: keys that
    /// share it are still different keys, short and empty keys are keys, and both the pairwise
    /// (up to 32 keys) and the sorted path (more) find a repeat nested in arrays of objects.
    func testDuplicateKeySignaturesNeverMergeDifferentKeys() throws {
        func parsed(_ object: String) -> IssueCode? {
            parser.parse(Array("{\"nest\":[[{\"a\":1}],[\(object)]]}".utf8)).failureValue()?.code
        }
        // Same length, same first 8 bytes: different keys (the record then lacks its keys).
        XCTAssertEqual(parsed(#"{"identifierA":1,"identifierB":2}"#), .missingKey)
        XCTAssertEqual(parsed(#"{"identifierA":1,"identifierA":2}"#), .invalidJSON)
        // Short keys: a shorter key is not a prefix match of a longer one.
        XCTAssertEqual(parsed(#"{"a":1,"ab":2,"abc":3,"":4,"a\u0000":5}"#), .missingKey)
        XCTAssertEqual(parsed(#"{"a":1,"ab":2,"":3,"":4}"#), .invalidJSON)
        XCTAssertEqual(parsed(#"{"abcdefg":1,"abcdefgh":2,"abcdefghi":3}"#), .missingKey)
        XCTAssertEqual(parsed(#"{"abcdefgh":1,"x":2,"abcdefgh":3}"#), .invalidJSON)
        // Over 32 keys (the sorted path), with and without a repeat.
        let many = (0..<40).map { "\"key_with_long_shared_prefix_\($0)\":\($0)" }.joined(separator: ",")
        XCTAssertEqual(parsed("{\(many)}"), .missingKey)
        XCTAssertEqual(parsed("{\(many),\"key_with_long_shared_prefix_39\":0}"), .invalidJSON)
    }

    /// A raw room read back from a store was validated whole when it was imported: derive does
    /// not walk every object's keys again (it was a tenth of a derive), but it still refuses
    /// what it cannot read (a store damaged behind rederive's back fails cleanly, never crashes).
    func testAStoredRoomSkipsOnlyTheDuplicateKeyWalk() throws {
        let walls = tinyRoom.replacingOccurrences(of: "]}", with: #"],"walls":[]}"#)
        XCTAssertEqual(parser.decodeRoom(Array(walls.utf8)).failureValue()?.code, .invalidRoomJSON)
        guard case .success = parser.decodeRoom(Array(walls.utf8), storedByImport: true) else {
            return XCTFail("a stored room is not walked for duplicate keys again")
        }
        guard case .success(let room) = parser.decodeRoom(Array(tinyRoom.utf8), storedByImport: true) else {
            return XCTFail("a valid stored room decodes")
        }
        XCTAssertEqual(room.walls.count, 1)
        let damaged = Array(tinyRoom.utf8.dropLast(3))
        XCTAssertEqual(parser.decodeRoom(damaged, storedByImport: true).failureValue()?.code, .invalidRoomJSON)
        let huge = tinyRoom.replacingOccurrences(of: #""dimensions":["#, with: #""dimensions":[1e999,"#)
        XCTAssertNotEqual(huge, tinyRoom)
        XCTAssertEqual(
            parser.decodeRoom(Array(huge.utf8), storedByImport: true).failureValue()?.code, .nonFiniteNumber)
    }

    func testDuplicateKeysAreInvalidRoomJSONAtRoomLevel() throws {
        let walls = tinyRoom.replacingOccurrences(of: "]}", with: #"],"walls":[]}"#)
        let failure = try XCTUnwrap(parser.decodeRoom(Array(walls.utf8)).failureValue())
        XCTAssertEqual(failure.stage, .decode)
        XCTAssertEqual(failure.code, .invalidRoomJSON)
        XCTAssertTrue(failure.message.contains("duplicate key \"walls\""), failure.message)
        // A v2 record carries its room as base64: the record parses, the room is refused.
        let v2 = try ExportFixtures.line([
            "formatVersion": 2, "id": uuid, "roomName": "x", "capturedAt": "2026-02-10T09:15:00Z",
            "fullRoomDataJSON": ExportFixtures.base64(Array(walls.utf8)),
        ])
        let processed = RecordProcessor(deriver: SummaryDeriver()).process(line: Array(v2.utf8))
        XCTAssertEqual(processed.failureValue()?.code, .invalidRoomJSON)
    }

    // MARK: Byte-order mark

    func testByteOrderMarkAtTheStartOfAFileIsAccepted() throws {
        let dir = try TemporaryDirectory()
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        for name in ["bom.jsonl", "bom.jsonl.zst"] {
            try ExportFixtures.write(bom + v3() + [0x0A] + v3() + [0x0A] + bom + v3() + [0x0A], to: dir.file(name))
            let reader = try ExportReader(path: dir.file(name))
            var results: [Bool] = []
            while let line = reader.nextLine() {
                results.append((try? parser.parse(line.bytes).get()) != nil)
            }
            XCTAssertEqual(results, [true, true, false], "only the BOM at the file's start is skipped (\(name))")
        }
    }

    // MARK: The README's code table

    func testReadmeCodeTableIsIssueCodeByStage() throws {
        let readme = try String(contentsOf: RoomFixtures.repoRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var table: [(String, [String])] = []
        var inInput = false
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { inInput = line == "## Input" }
            guard inInput, line.hasPrefix("| "), !line.hasPrefix("| ---"), !line.hasPrefix("| stage") else { continue }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2 else { continue }
            let codes = cells[1].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter {
                $0.offset % 2 == 1
            }.map { String($0.element) }
            table.append((cells[0], codes))
        }
        let expected = IssueCode.byStage.map { ($0.stage.rawValue, $0.codes.map(\.rawValue)) }
        XCTAssertEqual(table.map(\.0), expected.map(\.0), "stages of the README's code table")
        for ((stage, codes), (_, want)) in zip(table, expected) {
            XCTAssertEqual(codes, want, "README codes for stage \(stage)")
        }
    }
}
