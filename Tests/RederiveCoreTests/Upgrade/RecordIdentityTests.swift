import Foundation
import XCTest
@testable import RederiveCore

/// Canonical UUID text and the deterministic content ids of version-1 records.
final class RecordIdentityTests: XCTestCase {
    private let room = Array(#"{"walls":[]}"#.utf8)

    private func assertUUIDv8(_ id: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(RecordIdentity.canonicalUUID(id), id, "canonical uppercase UUID text", file: file, line: line)
        XCTAssertNotNil(UUID(uuidString: id), file: file, line: line)
        let chars = Array(id)
        XCTAssertEqual(chars[14], "8", "version nibble", file: file, line: line)
        XCTAssertTrue("89AB".contains(chars[19]), "RFC 4122 variant", file: file, line: line)
    }

    func testContentIDIsDeterministicAndAUUIDv8() {
        let a = RecordIdentity.contentID(roomName: "Bedroom", timestamp: 792576000.25, roomData: room)
        let b = RecordIdentity.contentID(roomName: "Bedroom", timestamp: 792576000.25, roomData: room)
        XCTAssertEqual(a, b)
        assertUUIDv8(a)
    }

    func testContentIDChangesWithEachInput() {
        let base = RecordIdentity.contentID(roomName: "Bedroom", timestamp: 1, roomData: room)
        let others = [
            RecordIdentity.contentID(roomName: "Bedroom", timestamp: 1, roomData: Array(#"{"walls":[ ]}"#.utf8)),
            RecordIdentity.contentID(roomName: "Bedroom2", timestamp: 1, roomData: room),
            RecordIdentity.contentID(roomName: "Bedroom", timestamp: 1.001, roomData: room),
            RecordIdentity.contentID(roomName: "Bedroom", timestamp: 1, roomData: []),
            // Name/room boundary is unambiguous.
            RecordIdentity.contentID(roomName: "Bedroom\u{0}", timestamp: 1, roomData: room),
        ]
        for other in others {
            XCTAssertNotEqual(base, other)
            assertUUIDv8(other)
        }
        XCTAssertEqual(Set(others).count, others.count)
    }

    func testCanonicalUUID() {
        XCTAssertEqual(
            RecordIdentity.canonicalUUID("8b0e5f8a-0d1c-4b8e-9e0a-3c2f1d6b7a90"), "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90"
        )
        XCTAssertEqual(
            RecordIdentity.canonicalUUID("8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90"), "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90"
        )
        for bad in [
            "", "nope", "8B0E5F8A0D1C4B8E9E0A3C2F1D6B7A90", "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A9",
            "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A900", "8B0E5F8A-0D1C-4B8E-9E0A_3C2F1D6B7A90",
            "G B0E5F8-0D1C-4B8E-9E0A-3C2F1D6B7A90", "{8B0E5F8-0D1C-4B8E-9E0A-3C2F1D6B7A90}",
            "8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7Aé",
        ] {
            XCTAssertNil(RecordIdentity.canonicalUUID(bad), bad)
        }
    }

    func testContentHash() {
        let a = ContentHash.digest(Array("hello".utf8))
        XCTAssertEqual(a, ContentHash.digest(Array("hello".utf8)))
        XCTAssertNotEqual(a, ContentHash.digest(Array("hellp".utf8)))
        XCTAssertEqual(a.bytes.count, 16)
        XCTAssertEqual(a.hex.count, 32)
        XCTAssertTrue(a.hex.allSatisfy { "0123456789abcdef".contains($0) })
        // Lengths around XXH64's 32-byte stripes and 8/4-byte tails all differ.
        let hashes = (0..<80).map { ContentHash.digest([UInt8](repeating: 7, count: $0)) }
        XCTAssertEqual(Set(hashes).count, 80)
    }
}
