import XCTest

@testable import RederiveCore

/// The summary JSON's numbers (`RoomSummary.appendRounded`, `appendInt`): written from their
/// hundredths or digits without a String, byte for byte what Swift's description of the rounded
/// double (or `String` of the count) writes, which is what every stored summary holds.
final class RoomSummaryJSONNumberTests: XCTestCase {
    private func written(_ value: Double) -> String {
        var out: [UInt8] = []
        RoomSummary.appendRounded(value, to: &out)
        return String(decoding: out, as: UTF8.self)
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

    /// Counts (`appendInt`) as `String(value)` writes them: zero, both signs, every number of
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
            var out: [UInt8] = [UInt8(ascii: "x")]
            RoomSummary.appendInt(value, to: &out)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), "x" + String(value), "\(value)")
        }
    }
}
