import XCTest

@testable import RederiveCore

/// The tally's digest is the SHA-256 of each write's own SHA-256 (`ChangeTally.leaf`), which
/// the workers compute beside their derive: a leaf handed in must give the digest the tally
/// makes itself, and no two different sets of writes may share a digest.
final class ChangeTallyTests: XCTestCase {
    private typealias Write = (seq: Int64, stored: String?, version: Int?, new: String)

    private func digest(_ writes: [Write], precomputed: Bool = false) -> String {
        var tally = ChangeTally()
        for w in writes {
            let json = Array(w.new.utf8)
            let leaf =
                precomputed
                ? ChangeTally.leaf(seq: w.seq, stored: w.stored, storedVersion: w.version, newJSON: json) : nil
            tally.write(seq: w.seq, stored: w.stored, storedVersion: w.version, newJSON: json, leaf: leaf)
        }
        return tally.digest.hex
    }

    private let writes: [Write] = [
        (1, "{\"a\":1}", 1, "{\"a\":1}"), (2, "{\"a\":1}", 1, "{\"a\":2}"), (5, nil, nil, "{\"b\":3}"),
    ]

    func testAWorkersLeafGivesTheDigestTheTallyMakesItself() {
        XCTAssertEqual(digest(writes, precomputed: true), digest(writes))
        XCTAssertEqual(digest(writes).count, 64)
    }

    func testTheDigestIsTheSHA256OfEachWritesSHA256InOrder() {
        var expected = SHA256()
        for w in writes {
            var leaf = SHA256()
            let stored = Array((w.stored ?? "").utf8)
            let same: Int64 = stored == Array(w.new.utf8) ? 1 : 0
            let head = [w.seq, Int64(w.version ?? -1), Int64(stored.count), Int64(w.new.utf8.count), same]
            for value in head { withUnsafeBytes(of: value.littleEndian) { leaf.update($0) } }
            leaf.update(stored)
            if same == 0 { leaf.update(Array(w.new.utf8)) }
            expected.update(leaf.finalized())
        }
        XCTAssertEqual(digest(writes), expected.hex)
    }

    func testDifferentWritesGiveDifferentDigests() {
        let base = digest(writes)
        let variants: [[Write]] = [
            [writes[1], writes[0], writes[2]],  // another order
            [writes[0], writes[1]],  // one write fewer
            [(1, "{\"a\":1}", 2, "{\"a\":1}"), writes[1], writes[2]],  // another stored version
            [(1, "{\"a\":1}", 1, "{\"a\":3}"), writes[1], writes[2]],  // a value change, not version only
            [writes[0], (2, "{\"a\":1}{", 1, "\"a\":2}"), writes[2]],  // bytes moved from new to stored
            [writes[0], writes[1], (6, nil, nil, "{\"b\":3}")],  // another key
        ]
        for (n, variant) in variants.enumerated() {
            XCTAssertNotEqual(digest(variant), base, "variant \(n)")
        }
        XCTAssertEqual(Set(variants.map { digest($0) }).count, variants.count, "all distinct")
    }
}
