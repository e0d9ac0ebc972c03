import XCTest

@testable import RederiveCore

/// `ObjectCategories`, the sorted array that replaced a dictionary in `RoomSummary`: the same
/// keys, counts and JSON order as the dictionary it replaced, built in any order.
final class ObjectCategoriesTests: XCTestCase {
    /// Keys that sort differently by `String`'s `<` and by their UTF-8 bytes, and two spellings
    /// of "é" that `String` compares equal (canonical equivalence).
    private let pool = [
        "chair", "table", "Z", "a\"", "f", "e\u{301}", "\u{E9}", "\u{E9}x", "storage", "", "sofa", "bed",
        "\u{1F3E0}", "ab", "a",
    ]

    /// What the summary held before: a dictionary counted per object, written in UTF-8 byte order.
    private func dictionaryEntries(_ keys: [String]) -> [ObjectCategories.Entry] {
        var counts: [String: Int] = [:]
        for key in keys { counts[key, default: 0] += 1 }
        return counts.sorted { JSONText.utf8Precedes($0.key, $1.key) }.map { .init(key: $0.key, count: $0.value) }
    }

    func testEntriesMatchACountingDictionaryInAnyOrder() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let keys = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                pool.randomElement(using: &generator)!
            }
            var categories = ObjectCategories()
            for key in keys { categories.add(key) }
            let expected = dictionaryEntries(keys)
            // Keys compared byte for byte: the JSON writes the bytes of the key kept.
            XCTAssertEqual(
                categories.entries.map { Array($0.key.utf8) }, expected.map { Array($0.key.utf8) }, "\(keys)")
            XCTAssertEqual(categories.entries.map(\.count), expected.map(\.count), "\(keys)")
        }
    }

    func testEquivalentSpellingsAreOneKeyTheFirstKept() {
        var categories = ObjectCategories()
        categories.add("e\u{301}")
        categories.add("\u{E9}")
        categories.add("f")
        XCTAssertEqual(categories.count, 2)
        XCTAssertEqual(categories.entries.map { Array($0.key.utf8) }, [[0x65, 0xCC, 0x81], [0x66]])
        XCTAssertEqual(categories["\u{E9}"], 2)
        XCTAssertEqual(categories, ["f": 1, "\u{E9}": 2], "equal as dictionaries are, whichever spelling")
    }

    func testSubscriptSetsRemovesAndLiteralsCompareAsDictionaries() {
        var categories: ObjectCategories = ["table": 1, "chair": 2]
        XCTAssertEqual(categories.entries.map(\.key), ["chair", "table"])
        categories["bed"] = 3
        categories["chair"] = nil
        categories.add("table", 4)
        XCTAssertEqual(categories.entries, [.init(key: "bed", count: 3), .init(key: "table", count: 5)])
        XCTAssertNil(categories["chair"])
        XCTAssertEqual(categories, ObjectCategories(["table": 5, "bed": 3]))
        XCTAssertNotEqual(categories, ["table": 5])
        XCTAssertNotEqual(categories, ["table": 5, "bed": 2])
        XCTAssertTrue(ObjectCategories().isEmpty)
    }

    /// Counting past `linearLimit` different keys (a hostile room has up to 10,000 objects, each
    /// its own category) goes on in a dictionary: the same entries, the first spelling kept.
    func testCountingManyDifferentKeysMatchesACountingDictionary() {
        var keys = (0..<RoomLimits.maxObjects).map { "\u{E9}\(($0 * 7919) % 3_000)" }
        keys.insert("e\u{301}1", at: 0)  // an equivalent spelling of "\u{E9}1", seen first
        keys += pool
        let categories = ObjectCategories(counting: keys)
        let expected = dictionaryEntries(keys)
        XCTAssertEqual(categories.count, expected.count)
        XCTAssertEqual(categories.entries.map { Array($0.key.utf8) }, expected.map { Array($0.key.utf8) })
        XCTAssertEqual(categories.entries.map(\.count), expected.map(\.count))
        XCTAssertEqual(categories["\u{E9}1"], keys.filter { $0 == "\u{E9}1" }.count, "both spellings counted")
        XCTAssertEqual(
            categories.entries.first { $0.key == "\u{E9}1" }.map { Array($0.key.utf8) }, [0x65, 0xCC, 0x81, 0x31])
        var few = ObjectCategories(counting: pool)
        XCTAssertEqual(few.entries, dictionaryEntries(pool))
        XCTAssertEqual(
            categories, ObjectCategories(Dictionary(uniqueKeysWithValues: expected.map { ($0.key, $0.count) })))
        few.add("x")
        XCTAssertNotEqual(categories, few)
    }
}
