import Foundation
import XCTest

@testable import RederiveCore

/// `JSONText.appendString`: a JSON string literal written by runs, byte for byte what escaping
/// each byte in turn writes, and text JSON readers read back as the string.
final class JSONTextTests: XCTestCase {
    /// The literal by one byte at a time (how it was written before runs were copied whole).
    private func bytewise(_ value: String) -> [UInt8] {
        var out: [UInt8] = [0x22]
        for byte in value.utf8 {
            switch byte {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0..<0x20: out += Array(String(format: "\\u%04x", byte).utf8)
            default: out.append(byte)
            }
        }
        return out + [0x22]
    }

    private func written(_ value: String) -> [UInt8] {
        var out: [UInt8] = Array("prefix".utf8)
        JSONText.appendString(value, to: &out)
        XCTAssertEqual(Array(out.prefix(6)), Array("prefix".utf8), "appended after what was there")
        return Array(out.dropFirst(6))
    }

    func testEscapesMatchWritingByteByByte() throws {
        let controls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        let values = [
            "", "plain", "\"", "\\", "a\"b\\c", "\"leading", "trailing\\", "Wohnzimmer \u{1F3E0} é\u{0301}",
            controls, "tab\there\nnew\rline\u{7F}", String(repeating: "x\"", count: 40) + "end",
            "a long run of text without any byte to escape, longer than a small string holds",
        ]
        for value in values {
            let out = written(value)
            XCTAssertEqual(out, bytewise(value), value.debugDescription)
            let decoded = try JSONSerialization.jsonObject(with: Data(out), options: .fragmentsAllowed)
            XCTAssertEqual(decoded as? String, value, value.debugDescription)
        }
        XCTAssertEqual(String(decoding: written("a\"b\\\n\u{01}"), as: UTF8.self), #""a\"b\\\n\u0001""#)
    }
}
