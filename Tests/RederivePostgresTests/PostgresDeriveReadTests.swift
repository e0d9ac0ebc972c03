import CRoomJSON
import Foundation
import XCTest

@testable import RederiveCore
@testable import RederivePostgres
@testable import RederiveTestSupport
@testable import RederiveEngineTestSupport

/// A derive's read of a range (`PostgresStore.fetchRooms`) puts the raw rooms and the stored
/// summaries' JSON into shared buffers, each padded for the parser (read in place, not copied
/// again), as the SQLite engine reads them; the bytes are the stored ones.
final class PostgresDeriveReadTests: PostgresTestCase {
    func testTheReadPadsTheRawRoomsInSharedBuffersAndKeepsTheStoredJSON() throws {
        try importFixtures()
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let rooms = try store.fetchRooms(
            DeriveSelection(all: true), deriver: SummaryDeriver(), allowDowngrade: false, after: 0, upTo: Int64.max,
            limit: 10)
        XCTAssertEqual(rooms.count, 10)
        let stored = try cluster.sql(
            "SELECT encode(skeleton, 'hex') FROM raw_room ORDER BY record_seq LIMIT 10", url: url)
        for (room, hex) in zip(rooms, stored) {
            room.skeletonBytes.withUnsafeBytes { bytes, readable in
                XCTAssertEqual(bytes.map { String(format: "%02x", $0) }.joined(), hex)
                XCTAssertGreaterThanOrEqual(readable, bytes.count + Int(RJ_PADDING), "parsed in place, not copied")
            }
            let json = try XCTUnwrap(room.storedJSON)
            XCTAssertTrue(room.storedJSONIs(Array(json.utf8)))
            XCTAssertEqual(
                try cluster.sql("SELECT summary_json FROM summary WHERE record_seq = \(room.seq)", url: url), [json])
        }
    }
}
