import XCTest

@testable import RederiveCore

/// A stored room's summary JSON, held as text or as its bytes in a page's buffer: read back as
/// the same text either way (cut at a NUL byte as SQLite's text reader cuts it), and compared
/// with a derived summary's bytes the same way.
final class StoredRoomTests: XCTestCase {
    private func room(json: String?) -> StoredRoom {
        StoredRoom(
            seq: 1, id: "a", roomName: "", sourceFile: "f", sourceLine: 1, skeleton: [], storedVersion: 2,
            storedFingerprint: "x", storedJSON: json)
    }

    private func span(_ bytes: [UInt8]) -> PaddedBytes {
        var page = PaddedBytes.Page()
        for item in [Array("before".utf8), bytes, Array("after".utf8)] {
            item.withUnsafeBufferPointer { page.append($0) }
        }
        return page.spans()[1]
    }

    func testTheJSONReadsTheSameAsTextOrAsBytes() {
        let json = #"{"wall_count":4,"room_shape":"Wohnzimmer \u00e9 🏠"}"#
        let asText = room(json: json)
        var asBytes = room(json: nil)
        XCTAssertFalse(asBytes.hasStoredJSON)
        XCTAssertFalse(asBytes.storedJSONIs([]))
        asBytes.storedJSONBytes = span(Array(json.utf8))
        for stored in [asText, asBytes] {
            XCTAssertTrue(stored.hasStoredJSON)
            XCTAssertEqual(stored.storedJSON, json)
            XCTAssertTrue(stored.storedJSONIs(Array(json.utf8)))
            XCTAssertFalse(stored.storedJSONIs(Array(json.utf8.dropLast())))
            XCTAssertFalse(stored.storedJSONIs(Array(json.utf8.dropLast()) + [UInt8(ascii: "]")]))
        }
        var empty = room(json: nil)
        empty.storedJSONBytes = span([])
        XCTAssertEqual(empty.storedJSON, "")
        XCTAssertTrue(empty.storedJSONIs([]))
        asBytes.storedJSON = nil
        XCTAssertFalse(asBytes.hasStoredJSON, "set as text: the bytes go")
    }

    func testBytesWithANULReadAsTextCutThere() {
        var stored = room(json: nil)
        stored.storedJSONBytes = span(Array("{}".utf8) + [0] + Array("junk".utf8))
        XCTAssertEqual(stored.storedJSON, "{}")
    }
}
