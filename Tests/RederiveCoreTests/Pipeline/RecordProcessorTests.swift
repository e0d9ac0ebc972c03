import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// `RecordProcessor.process(line:)` decodes a format-3 room from the record's own parse
/// (`RecordParser.decodeParsedRoom`): its result, summary or failure, must be what decoding the
/// room's bytes on their own gives.
final class RecordProcessorTests: XCTestCase {
    private let id = "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90"
    private let wall = #"{"dimensions":[3,2.5,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,1.5,0,0,1]}"#

    // The same line through the separate path: parse, upgrade, decode the room's bytes, derive.
    private func separately(_ processor: RecordProcessor, _ line: [UInt8]) throws -> Result<[UInt8], RecordFailure> {
        let parsed = try XCTUnwrap(RecordParser().parse(line).successValue())
        let record = FormatUpgrade.toCurrent(parsed)
        return processor.derive(room: record.room, id: record.id).map(\.1)
    }

    private func assertSameAsSeparately(_ roomText: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let processor = RecordProcessor(deriver: SummaryDeriver())
        let bytes = ExportFixtures.v3Line(id: id, name: "R", roomText: Array(roomText.utf8))
        let shared = processor.process(line: bytes).map(\.summaryJSON)
        let expected = try separately(processor, bytes)
        switch (shared, expected) {
        case (.success(let a), .success(let b)):
            XCTAssertEqual(
                String(decoding: a, as: UTF8.self), String(decoding: b, as: UTF8.self), file: file, line: line)
        case (.failure(let a), .failure(let b)):
            XCTAssertEqual(a, b, roomText, file: file, line: line)
        default:
            XCTFail("\(roomText): \(shared) against \(expected)", file: file, line: line)
        }
    }

    func testFormat3RoomsDeriveFromTheRecordsParseAsFromTheirBytes() throws {
        for name in RoomFixtures.names {
            try assertSameAsSeparately(String(decoding: try ExportFixtures.compactRoom(name), as: UTF8.self))
        }
        // The room's own checks, each failing from the shared parse as from the bytes.
        for room in [
            #"{"walls":[\#(wall)]}"#, "{}", #"{"walls":{}}"#, #"{"walls":[{"dimensions":[3,2.5]}]}"#,
            #"{"walls":[{"dimensions":[3,-2.5,0],"transform":[1,0,0,0,0,1,0,0,0,0,1,0,1.5,0,0,1]}]}"#,
            #"{"walls":[{"dimensions":[3,2.5,0],"transform":[1,0,0]}]}"#, #"{"walls":[\#(wall)],"objects":[{}]}"#,
            #"{"walls":[\#(wall)],"floors":[{"dimensions":[1,1,0],"polygonCorners":[[0,0]]}]}"#,
            #"{"walls":[\#(wall)],"sections":[{"label":"bathroom"}],"coreModel":"QUJD"}"#,
        ] {
            try assertSameAsSeparately(room)
        }
    }

    func testAParsedRoomIsReadOnceAndOnlyFromAFormat3Record() throws {
        let parser = RecordParser()
        let room = try ExportFixtures.compactRoom(RoomFixtures.names[0])
        XCTAssertNotNil(parser.parse(ExportFixtures.v3Line(id: id, name: "R", roomText: room)).successValue())
        XCTAssertNotNil(parser.decodeParsedRoom().successValue())
        XCTAssertEqual(parser.decodeParsedRoom().failureValue()?.code, .internalError, "read once")
        let v2 = Array(try ExportFixtures.v2Line(id: id, name: "R", room: room).utf8)
        XCTAssertNotNil(parser.parse(v2).successValue())
        XCTAssertEqual(parser.decodeParsedRoom().failureValue()?.code, .internalError, "no room object in format 2")
    }
}
