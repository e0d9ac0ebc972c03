import Foundation
import XCTest
@testable import RederiveCore
@testable import RederiveTestSupport

/// A format-2 record's `fullRoomDataJSON` decoded by the bridge's base64 decoder (a group of four
/// characters at a time, 32 checked at once) against a plain decoder written here, character by
/// character: every length to 99 bytes, with and without padding, and bad characters along each.
final class RecordParserBase64Tests: XCTestCase {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let values = Dictionary(uniqueKeysWithValues: alphabet.enumerated().map { ($1, UInt32($0)) })

    // Standard base64 with optional padding (any number of trailing '='), nil when invalid.
    private static func reference(_ text: [UInt8]) -> [UInt8]? {
        var chars = text
        while chars.last == UInt8(ascii: "=") { chars.removeLast() }
        if chars.count % 4 == 1 { return nil }
        var out: [UInt8] = []
        var bits: UInt32 = 0, count = 0
        for c in chars {
            guard let v = values[c] else { return nil }
            bits = bits << 6 | v
            count += 6
            if count >= 8 {
                count -= 8
                out.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
            }
        }
        return out
    }

    private func decoded(_ parser: RecordParser, _ text: [UInt8]) throws -> [UInt8]? {
        let line =
            #"{"formatVersion":2,"id":"8B0E5F8A-0D1C-4B8E-9E0A-3C2F1D6B7A90","roomName":"R","#
            + #""capturedAt":"2026-02-10T09:15:00Z","fullRoomDataJSON":""# + String(decoding: text, as: UTF8.self)
            + #""}"#
        switch parser.parse(Array(line.utf8)) {
        case .success(.v2(let record)): return record.fullRoomData
        case .failure(let failure):
            XCTAssertEqual(failure.code, .invalidBase64, failure.message)
            return nil
        case .success(let other):
            XCTFail("not a format-2 record: \(other)")
            return nil
        }
    }

    func testEveryLengthAndEveryBadPlaceDecodeAsThePlainDecoder() throws {
        let parser = RecordParser()
        var random = SystemRandomNumberGenerator()
        var checked = 0, invalid = 0
        for length in 0..<100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let padded = Array(Data(bytes).base64EncodedString().utf8)
            var unpadded = padded
            while unpadded.last == UInt8(ascii: "=") { unpadded.removeLast() }
            for text in [padded, unpadded] {
                XCTAssertEqual(try decoded(parser, text), bytes, "length \(length)")
                XCTAssertEqual(Self.reference(text), bytes, "the reference itself")
                checked += 1
                for place in stride(from: 0, to: text.count, by: max(1, text.count / 10)) {
                    for bad in [UInt8(ascii: "!"), UInt8(ascii: "=")] {
                        var broken = text
                        broken[place] = bad
                        let expected = Self.reference(broken)
                        XCTAssertEqual(try decoded(parser, broken), expected, "\(length) bytes, \(bad) at \(place)")
                        if expected == nil { invalid += 1 }
                        checked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(invalid, 1000, "bad characters were tried")
        XCTAssertGreaterThan(checked, 3000)
    }
}
