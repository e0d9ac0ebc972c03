import Foundation
import XCTest
@testable import RederiveCore

/// Reference-date seconds → ISO 8601, checked against Foundation's own formatter.
final class ReferenceDateTests: XCTestCase {
    /// Foundation's rendering, independent of `ReferenceDate`: whole seconds without a
    /// fraction, otherwise milliseconds.
    private func foundation(_ seconds: Double) -> String {
        let date = Date(timeIntervalSinceReferenceDate: seconds)
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        if seconds == seconds.rounded() {
            formatter.formatOptions = [.withInternetDateTime]
        } else {
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        }
        return formatter.string(from: date)
    }

    func testReferenceDateItself() {
        XCTAssertEqual(ReferenceDate.iso8601(secondsSinceReferenceDate: 0), "2001-01-01T00:00:00Z")
    }

    func testKnownValueWithFraction() {
        let expected = foundation(792576000.25)
        XCTAssertTrue(expected.hasSuffix(".250Z"), expected)
        XCTAssertEqual(ReferenceDate.iso8601(secondsSinceReferenceDate: 792576000.25), expected)
        XCTAssertEqual(expected, "2026-02-12T08:00:00.250Z")
    }

    func testNegativeValues() {
        XCTAssertEqual(ReferenceDate.iso8601(secondsSinceReferenceDate: -1), "2000-12-31T23:59:59Z")
        XCTAssertEqual(ReferenceDate.iso8601(secondsSinceReferenceDate: -1.5), "2000-12-31T23:59:58.500Z")
        XCTAssertEqual(ReferenceDate.iso8601(secondsSinceReferenceDate: -978_307_200), "1970-01-01T00:00:00Z")
        XCTAssertEqual(ReferenceDate.iso8601(secondsSinceReferenceDate: -86_400 * 365.0), foundation(-86_400 * 365.0))
    }

    func testAgreesWithFoundationAcrossTheCalendar() {
        // Leap days, century rules (2100 is not a leap year, 2000 is), month ends.
        var values: [Double] = [
            -31_622_400,  // 2000-01-01
            5_097_600,  // 2001-03-01
            3_155_760_000, 3_160_857_600, 4_107_542_400,  // 2101..2131
            -1_009_843_200, 86_399, 86_399.999, 123_456_789.125,
        ]
        var x = 12_345.0
        for _ in 0..<500 {
            x = (x * 1_103_515_245 + 12_345).truncatingRemainder(dividingBy: 8_000_000_000) - 2_000_000_000
            values.append((x * 8).rounded() / 8)  // multiples of 1/8 s: exact milliseconds
        }
        for v in values {
            XCTAssertEqual(ReferenceDate.iso8601(secondsSinceReferenceDate: v), foundation(v), "\(v)")
        }
    }

    func testHugeTimestampsDoNotTrap() {
        // A finite but absurd v1 timestamp must never crash a run.
        for v in [1e300, -1e300, Double.greatestFiniteMagnitude, 1e17] {
            XCTAssertFalse(ReferenceDate.iso8601(secondsSinceReferenceDate: v).isEmpty)
        }
    }
}

extension ReferenceDateTests {
    func testRepresentableRangeEnds() {
        XCTAssertEqual(
            ReferenceDate.iso8601(secondsSinceReferenceDate: ReferenceDate.representable.lowerBound),
            "0001-01-01T00:00:00Z")
        XCTAssertEqual(
            ReferenceDate.iso8601(secondsSinceReferenceDate: ReferenceDate.representable.upperBound - 1),
            "9999-12-31T23:59:59Z")
        XCTAssertEqual(ReferenceDate.iso8601(secondsSinceReferenceDate: 1e300), "9999-12-31T23:59:59.999Z")
        XCTAssertEqual(ReferenceDate.iso8601(secondsSinceReferenceDate: -1e300), "0001-01-01T00:00:00Z")
    }
}
