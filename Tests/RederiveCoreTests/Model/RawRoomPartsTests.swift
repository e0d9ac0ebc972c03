import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// Raw rooms split into skeleton + coreModel and joined back byte-exact.
final class RawRoomPartsTests: XCTestCase {
    private let parser = RecordParser()

    private func roundTrip(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> RawRoomParts {
        let bytes = Array(text.utf8)
        let parts = parser.split(room: bytes)
        XCTAssertEqual(parts.joined(), bytes, "join(split(x)) == x", file: file, line: line)
        return parts
    }

    func testSplitAndJoinWithCoreModel() throws {
        let text = #"{"walls":[],"coreModel":"QUJDRA==","version":2}"#
        let parts = roundTrip(text)
        XCTAssertEqual(String(decoding: parts.coreModel, as: UTF8.self), "QUJDRA==")
        XCTAssertEqual(String(decoding: parts.skeleton, as: UTF8.self), #"{"walls":[],"coreModel":"","version":2}"#)
        XCTAssertEqual(parts.coreModelOffset, text.utf8.count - #"QUJDRA==","version":2}"#.utf8.count)
        // The skeleton is still valid JSON.
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(parts.skeleton)))
    }

    func testRoomWithoutCoreModel() {
        let text = #"{"walls":[{"dimensions":[1,2,0]}],"doors":[]}"#
        let parts = roundTrip(text)
        XCTAssertEqual(parts.coreModelOffset, -1)
        XCTAssertEqual(parts.coreModel, [])
        XCTAssertEqual(parts.skeleton, Array(text.utf8))
    }

    func testNonStringCoreModelIsLeftInPlace() {
        for text in [#"{"coreModel":null,"walls":[]}"#, #"{"coreModel":{"a":"b"},"walls":[]}"#] {
            let parts = roundTrip(text)
            XCTAssertEqual(parts.coreModelOffset, -1, text)
        }
    }

    func testEscapedCharactersInCoreModelStayVerbatim() {
        let core = #"ab\/cd\"ef\\gh\u00e9\n+/="#
        let text = #"{"coreModel":""# + core + #"","floors":[]}"#
        let parts = roundTrip(text)
        XCTAssertEqual(String(decoding: parts.coreModel, as: UTF8.self), core, "escapes untouched")
        XCTAssertEqual(String(decoding: parts.skeleton, as: UTF8.self), #"{"coreModel":"","floors":[]}"#)
    }

    func testEmptyCoreModelAndWhitespace() {
        let empty = roundTrip(#"{"coreModel":"","walls":[]}"#)
        XCTAssertEqual(empty.coreModel, [])
        XCTAssertGreaterThanOrEqual(empty.coreModelOffset, 0)
        let spaced = roundTrip("{\n  \"walls\" : [ ],\n  \"coreModel\" :  \"x\\/y\"  ,\n  \"z\" : 1\n}")
        XCTAssertEqual(String(decoding: spaced.coreModel, as: UTF8.self), #"x\/y"#)
    }

    func testNestedCoreModelKeyIsNotTheTopLevelOne() {
        // Only the top-level member is split out; a nested one stays in the skeleton.
        let text = #"{"objects":[{"coreModel":"nested"}],"coreModel":"top"}"#
        let parts = roundTrip(text)
        XCTAssertEqual(String(decoding: parts.coreModel, as: UTF8.self), "top")
        XCTAssertTrue(String(decoding: parts.skeleton, as: UTF8.self).contains(#""coreModel":"nested""#))
    }

    func testALeadingCoreModelIsFoundAsByTheFullWalk() {
        // A room that begins with its coreModel is split without a structural pass: the same
        // parts as the walk over every member finds (a longer key starting alike is another key).
        let cases: [(String, String?)] = [
            (#"{"coreModel":"QUJD","walls":[]}"#, "QUJD"),
            ("  {\n \"coreModel\" :\t\"a\\\"b\\\\\" , \"walls\":[]}", #"a\"b\\"#),
            (#"{"coreModelX":"a","coreModel":"b"}"#, "b"),
            (#"{"core\u004dodel":"a","w":1}"#, nil),
            (#"{"coreModel":1,"w":"x"}"#, nil),
        ]
        for (text, core) in cases {
            let parts = roundTrip(text)
            XCTAssertEqual(
                parts.coreModelOffset >= 0 ? String(decoding: parts.coreModel, as: UTF8.self) : nil, core, text)
        }
    }

    func testCommittedRoomsRoundTrip() throws {
        for name in RoomFixtures.names {
            let pretty = try ExportFixtures.roomFileBytes(name)
            XCTAssertEqual(parser.split(room: pretty).joined(), pretty, name)
            let compact = try ExportFixtures.compactRoom(name)
            XCTAssertEqual(parser.split(room: compact).joined(), compact, name)
        }
    }

    func testJoinedSkeletonDecodesLikeTheWholeRoom() throws {
        let processor = RecordProcessor(deriver: SummaryDeriver())
        for name in RoomFixtures.names {
            let room = try ExportFixtures.compactRoom(name)
            let whole = try XCTUnwrap(processor.derive(room: room, id: nil).successValue())
            let skeleton = processor.split(room: room).skeleton
            let fromSkeleton = try XCTUnwrap(processor.derive(room: skeleton, id: nil).successValue())
            XCTAssertEqual(whole.1, fromSkeleton.1, name)
        }
    }
}
