import XCTest

@testable import RederiveCore

/// The summary JSON's numbers (`RoomSummary.appendRounded`, `JSONBuffer.appendInt`): written from their
/// hundredths or digits without a String, byte for byte what Swift's description of the rounded
/// double (or `String` of the count) writes, which is what every stored summary holds.
final class RoomSummaryJSONNumberTests: XCTestCase {
    private func written(_ value: Double) -> String {
        var out = JSONBuffer(capacity: 0)
        RoomSummary.appendRounded(value, to: &out)
        return String(decoding: out.bytes(), as: UTF8.self)
    }

    /// What builds before the fast path wrote: the description of the rounded value.
    private func described(_ value: Double) -> String {
        let r = RoomSummary.roundedForJSON(value)
        return r.isFinite ? r.description : "null"
    }

    func testKnownForms() {
        let cases: [(Double, String)] = [
            (11.806, "11.81"), (2.4, "2.4"), (0, "0.0"), (-0.0, "0.0"), (-0.004, "0.0"), (0.05, "0.05"),
            (-3, "-3.0"), (100, "100.0"), (0.005, "0.01"), (1e12 + 0.25, "1000000000000.25"),
            (.nan, "null"), (.infinity, "null"), (1e300, "1e+300"), (-1e16, "-1e+16"),
        ]
        for (value, text) in cases {
            XCTAssertEqual(written(value), text, "\(value)")
            XCTAssertEqual(written(value), described(value), "\(value)")
        }
    }

    func testEveryMagnitudeMatchesTheDescription() {
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        // Values from 1e-4 to 1e17, both signs, around the 10^15-hundredths switch, and
        // exact halves of a hundredth (the rounding's ties).
        for exponent in -4...17 {
            for _ in 0..<4000 {
                let magnitude = Double.random(in: 1..<10, using: &generator) * pow(10, Double(exponent))
                for value in [magnitude, -magnitude, (magnitude * 100).rounded() / 100 + 0.005] {
                    XCTAssertEqual(written(value), described(value), "\(value)")
                    checked += 1
                }
            }
        }
        for hundredths in stride(from: 999_999_999_999_990.0, through: 1_000_000_000_000_010, by: 1) {
            XCTAssertEqual(written(hundredths / 100), described(hundredths / 100), "\(hundredths / 100)")
        }
        XCTAssertEqual(checked, 22 * 4000 * 3)
    }

    /// Counts (`JSONBuffer.appendInt`) as `String(value)` writes them: zero, both signs, every number of
    /// digits, and the extremes.
    func testCountsMatchTheirString() {
        var values = [0, 1, -1, 9, 10, -10, 99, 100, Int.max, Int.min, Int.max - 1, Int.min + 1]
        var power = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -power, -(power - 1)]
        }
        var generator = SystemRandomNumberGenerator()
        values += (0..<2000).map { _ in Int.random(in: Int.min...Int.max, using: &generator) }
        for value in values {
            var out = JSONBuffer(capacity: 0)
            out.append(UInt8(ascii: "x"))
            out.appendInt(value)
            XCTAssertEqual(String(decoding: out.bytes(), as: UTF8.self), "x" + String(value), "\(value)")
        }
    }

    /// The hundredths rounded without libm (`roundedHundredths`) are `(value * 100).rounded()`:
    /// at and beside every tie (a half of a hundredth), at the largest fractions below a half, up
    /// to 2^52 (where the fast path stops) and at random.
    func testRoundedHundredthsAreTheRoundedProduct() {
        var scaled: [Double] = [0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, 0.49999999999999994, -0.49999999999999994]
        for k in stride(from: 0.0, through: 1e6, by: 997) {
            for tie in [k + 0.5, -(k + 0.5)] { scaled += [tie, tie.nextUp, tie.nextDown] }
        }
        for exponent in 40...52 {
            let edge = pow(2, Double(exponent))
            scaled += [edge, -edge, edge - 0.5, -(edge - 0.5), edge.nextDown, -edge.nextDown, edge - 1.5]
        }
        var generator = SystemRandomNumberGenerator()
        for exponent in -6...16 {
            for _ in 0..<2000 {
                let value = Double.random(in: -10..<10, using: &generator) * pow(10, Double(exponent))
                scaled += [value * 100]
            }
        }
        var checked = 0
        for product in scaled {
            let value = product / 100
            let expected = (value * 100).rounded()
            if let hundredths = RoomSummary.roundedHundredths(value) {
                XCTAssertEqual(Double(hundredths), expected == 0 ? 0 : expected, "\(value)")
                checked += 1
            } else {
                XCTAssertGreaterThanOrEqual(abs(value * 100), 0x1p52, "\(value)")
            }
        }
        // The ties, the edges below 2^52 and the random values below 10^13.
        XCTAssertGreaterThan(checked, 40_000)
        XCTAssertNil(RoomSummary.roundedHundredths(.nan))
        XCTAssertNil(RoomSummary.roundedHundredths(.infinity))
    }
}
