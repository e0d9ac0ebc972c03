import XCTest

@testable import RederiveCore

/// `Transform`, held inline: built from an array or from the parser's flat buffer, it reads
/// the same elements, columns and translation, and its `elements` array round-trips.
final class TransformTests: XCTestCase {
    private let values: [Double] = (0..<16).map { Double($0) * 1.5 - 4 }

    func testArrayAndBufferGiveTheSameTransform() {
        let fromArray = Transform(values)
        // Unaligned on purpose: the parser's surfaces hold a transform after three dimensions.
        let buffer = [Double.nan, Double.nan, Double.nan] + values
        let fromBuffer = buffer.withUnsafeBufferPointer { Transform($0.baseAddress! + 3) }
        XCTAssertEqual(fromArray, fromBuffer)
        XCTAssertEqual(fromBuffer.elements, values)
        for i in 0..<16 { XCTAssertEqual(fromBuffer[i], values[i]) }
        XCTAssertEqual(fromBuffer.translation, SIMD3(values[12], values[13], values[14]))
        XCTAssertEqual(fromBuffer.column(1), SIMD3(values[4], values[5], values[6]))
    }

    func testElementsCanBeSetAndIdentityApplies() {
        var transform = Transform.identity
        XCTAssertEqual(transform.apply(to: SIMD3(1, 2, 3)), SIMD3(1, 2, 3))
        var e = transform.elements
        e[12] = 10
        transform.elements = e
        XCTAssertEqual(transform.apply(to: SIMD3(1, 2, 3)), SIMD3(11, 2, 3))
        XCTAssertNotEqual(transform, .identity)
    }
}
