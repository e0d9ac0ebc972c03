import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// The floor pass `make bench` measures a derive against touches every value the derivation
/// reads: counted and summed here from the sample rooms by Foundation's JSON reader, on its own.
final class RoomFloorPassTests: XCTestCase {
    private struct Expected {
        var elements = 0
        var numbers = 0
        var stringBytes = 0
        var checksum = 0.0
    }

    private func expected(_ json: Data) throws -> Expected {
        let top = try XCTUnwrap(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        var expected = Expected()
        func add(_ numbers: Any?) {
            for case let n as NSNumber in (numbers as? [Any]) ?? [] {
                expected.numbers += 1
                expected.checksum += n.doubleValue
            }
        }
        for kind in ["walls", "doors", "windows", "openings", "floors", "objects"] {
            for element in (top[kind] as? [[String: Any]]) ?? [] {
                expected.elements += 1
                add(element["dimensions"])
                add(element["transform"])
                for corner in (element["polygonCorners"] as? [Any]) ?? [] { add(corner) }
                if let category = element["category"] as? [String: Any], let name = category.keys.first {
                    expected.stringBytes += name.utf8.count
                }
            }
        }
        for section in (top["sections"] as? [[String: Any]]) ?? [] {
            expected.stringBytes += ((section["label"] as? String) ?? "").utf8.count
        }
        return expected
    }

    func testItTouchesEveryValueTheDerivationReadsInEverySampleRoom() throws {
        let floor = RoomFloorPass()
        var total = Expected()
        for name in RoomFixtures.names {
            let bytes = try ExportFixtures.roomFileBytes(name)
            let want = try expected(Data(bytes))
            XCTAssertGreaterThan(want.elements, 0, name)
            let before = floor.totals
            XCTAssertTrue(bytes.withUnsafeBytes { floor.pass($0) }, name)
            let after = floor.totals
            XCTAssertEqual(after.rooms - before.rooms, 1, name)
            XCTAssertEqual(after.elements - before.elements, want.elements, name)
            XCTAssertEqual(after.numbers - before.numbers, want.numbers, name)
            XCTAssertEqual(after.stringBytes - before.stringBytes, want.stringBytes, name)
            XCTAssertEqual(
                after.checksum - before.checksum, want.checksum, accuracy: 1e-6 * max(1, abs(want.checksum)), name)
            total.elements += want.elements
        }
        XCTAssertEqual(floor.totals.rooms, RoomFixtures.names.count)
        XCTAssertEqual(floor.totals.elements, total.elements)
    }

    func testARoomWithAValueOfTheWrongKindFails() {
        let floor = RoomFloorPass()
        for text in [
            #"{"walls":[{"dimensions":[1,2,"3"],"transform":[]}]}"#, #"{"objects":[{"category":7}]}"#,
            #"{"walls":{"dimensions":[1]}}"#, #"[1,2]"#, #"{"walls":[{"dimensions":[1,2,3"#,
        ] {
            XCTAssertFalse(Array(text.utf8).withUnsafeBytes { floor.pass($0) }, text)
        }
        XCTAssertEqual(floor.totals.rooms, 0)
    }
}
