import XCTest
@testable import RederiveCore

/// SHA-256 against FIPS 180-4's test vectors, fed whole and in pieces.
final class SHA256Tests: XCTestCase {
    private func hex(_ text: String) -> String {
        var hash = SHA256()
        hash.update(text.utf8)
        return hash.hex
    }

    func testKnownVectors() {
        XCTAssertEqual(hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(
            hex(
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                    + "mnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        var million = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000)
        for _ in 0..<1_000 { million.update(chunk) }
        XCTAssertEqual(million.hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        XCTAssertEqual(SHA256.digest(Array("abc".utf8)).count, 32)
    }

    /// Every split of a message into two or three updates (block edges included) gives the
    /// one-shot digest; `hex` can be read midway and the digest goes on.
    func testPiecesGiveTheSameDigest() {
        let message = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let whole = SHA256.digest(message)
        for cut in 0...message.count {
            var hash = SHA256()
            hash.update(message[..<cut])
            _ = hash.hex
            let second = min(message.count, cut + 55)
            hash.update(message[cut..<second])
            hash.update(message[second...])
            XCTAssertEqual(hash.finalized(), whole, "cut at \(cut)")
        }
        XCTAssertNotEqual(SHA256.digest(message.dropLast()), whole)
    }
}
