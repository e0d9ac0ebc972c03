import CRoomJSON
import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// Raw rooms read into shared padded buffers (`PaddedBytes.Page`) come back byte for byte, each
/// with the parser's padding readable after it, and parse in place as their own arrays do.
final class PaddedBytesTests: XCTestCase {
    private func page(_ items: [[UInt8]?], blockSize: Int) -> [PaddedBytes] {
        var page = PaddedBytes.Page(blockSize: blockSize)
        for item in items {
            if let item { item.withUnsafeBufferPointer { page.append($0) } } else { page.append(nil) }
        }
        XCTAssertEqual(page.count, items.count)
        return page.spans()
    }

    func testSpansGiveBackTheirBytesInOrderWithPaddingAfterEach() {
        let items: [[UInt8]?] = [
            Array("first".utf8), nil, [], Array(repeating: 7, count: 300), Array("fifth".utf8),
            Array(repeating: 9, count: 1000), Array("last".utf8),
        ]
        // 256-byte blocks: several spans to a block, a new block when one is full, and a span
        // larger than a block in a block of its own.
        let spans = page(items, blockSize: 256)
        XCTAssertEqual(spans.map(\.array), items.map { $0 ?? [] })
        for (index, span) in spans.enumerated() {
            XCTAssertEqual(span.count, items[index]?.count ?? 0)
            span.withUnsafeBytes { bytes, readable in
                XCTAssertEqual(bytes.count, span.count)
                XCTAssertGreaterThanOrEqual(readable, span.count + Int(RJ_PADDING), "span \(index)")
            }
        }
        XCTAssertEqual(spans[0], PaddedBytes(Array("first".utf8)), "compared by bytes, wherever they lie")
        XCTAssertNotEqual(spans[0], spans[4])
    }

    func testSpansShareTheirBlock() {
        // Three 10-byte spans fit one 1,000-byte block: each reads on to the block's end.
        let spans = page([Array(repeating: 1, count: 10), Array(repeating: 2, count: 10), [3]], blockSize: 1000)
        let readable = spans.map { $0.withUnsafeBytes { $1 } }
        XCTAssertGreaterThanOrEqual(readable[0], 1000)
        XCTAssertEqual(readable[0] - readable[1], 10)
        XCTAssertEqual(readable[1] - readable[2], 10)
    }

    func testAnArrayOfItsOwnIsPaddedAsFarAsItsCapacityGoes() {
        var bytes = Array("{}".utf8)
        bytes.reserveCapacity(200)
        PaddedBytes(bytes).withUnsafeBytes { XCTAssertEqual($1, bytes.capacity) }
        XCTAssertEqual(PaddedBytes(bytes).array, bytes)
        XCTAssertEqual(PaddedBytes().count, 0)
    }

    /// The sample rooms side by side in small blocks, each parsed in place with its neighbours'
    /// bytes as its padding: the same summaries, byte for byte, as from arrays of their own.
    func testRoomsDeriveInPlaceAsFromTheirOwnArrays() throws {
        let rooms = try RoomFixtures.names.map {
            try Array(
                Data(contentsOf: RoomFixtures.repoRoot.appendingPathComponent("Fixtures/rooms/\($0).capturedRoom.json"))
            )
        }
        let spans = page(rooms + rooms.reversed(), blockSize: 4096)
        let processor = RecordProcessor(deriver: SummaryDeriver())
        for (index, span) in spans.enumerated() {
            let own = rooms[index < rooms.count ? index : 2 * rooms.count - 1 - index]
            let inPlace = try processor.derive(room: span, id: nil, storedByImport: true).get()
            let fromArray = try processor.derive(room: own, id: nil, storedByImport: true).get()
            XCTAssertEqual(inPlace.1, fromArray.1, "room \(index)")
            XCTAssertEqual(inPlace.0, fromArray.0, "room \(index)")
        }
    }
}
