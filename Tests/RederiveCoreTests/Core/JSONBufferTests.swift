import XCTest

@testable import RederiveCore

/// `JSONBuffer`: what is appended comes out in order, whatever the buffer grew through, and its
/// strings, digits and whole numbers are what `JSONText.appendString` and `String` write.
final class JSONBufferTests: XCTestCase {
    func testAppendsSurviveEveryGrowth() {
        var generator = SplitMix64(seed: 35)
        for capacity in [0, 1, 16, 17, 100] {
            var buffer = JSONBuffer(capacity: capacity)
            var expected: [UInt8] = []
            for step in 0..<400 {
                switch step % 4 {
                case 0:
                    let byte = UInt8.random(in: 0...255, using: &generator)
                    buffer.append(byte)
                    expected.append(byte)
                case 1:
                    // Runs from empty to several times the starting capacity.
                    let run = (0..<Int.random(in: 0...300, using: &generator)).map { UInt8(truncatingIfNeeded: $0) }
                    run.withUnsafeBufferPointer { buffer.append($0) }
                    expected += run
                case 2:
                    buffer.append(#"{"x":"#)
                    expected += Array(#"{"x":"#.utf8)
                default:
                    let value = UInt64.random(in: 0...UInt64.max, using: &generator) >> (step % 64)
                    buffer.appendDigits(value)
                    expected += Array(String(value).utf8)
                }
            }
            XCTAssertEqual(buffer.count, expected.count, "capacity \(capacity)")
            XCTAssertEqual(buffer.bytes(), expected, "capacity \(capacity)")
        }
    }

    func testStringsAreWrittenAsJSONTextWritesThem() {
        let controls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        let values = [
            "", "plain", "\"", "\\", "a\"b\\c", "Wohnzimmer \u{1F3E0} é\u{0301}", controls,
            "tab\there\nnew\rline\u{7F}", String(repeating: "x\"", count: 400) + "end",
        ]
        for value in values {
            var buffer = JSONBuffer(capacity: 4)
            buffer.append(UInt8(ascii: "["))
            buffer.appendString(value)
            var expected: [UInt8] = [UInt8(ascii: "[")]
            JSONText.appendString(value, to: &expected)
            XCTAssertEqual(buffer.bytes(), expected, value.debugDescription)
        }
    }

    func testDigitsAndWholeNumbersMatchTheirString() {
        var values: [Int] = [0, 1, -1, 9, 10, -10, Int.max, Int.min, Int.min + 1]
        var power = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -power]
        }
        var text: [UInt8] = []
        var buffer = JSONBuffer(capacity: 8)
        for value in values {
            buffer.appendInt(value)
            buffer.append(UInt8(ascii: ","))
            text += Array((String(value) + ",").utf8)
        }
        buffer.appendDigits(UInt64.max)
        text += Array(String(UInt64.max).utf8)
        XCTAssertEqual(String(decoding: buffer.bytes(), as: UTF8.self), String(decoding: text, as: UTF8.self))
    }
}
