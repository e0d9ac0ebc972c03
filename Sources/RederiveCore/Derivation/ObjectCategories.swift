/// Object counts per category key (`["chair": 2, "table": 1]`), kept sorted by the keys' UTF-8
/// bytes (`JSONText.utf8Precedes`), the order the summary JSON writes them in.
///
/// A short sorted array rather than a dictionary: a room has a handful of categories and a
/// summary is derived for every record, so finding a key by comparing it with each is cheaper
/// than hashing it, and the JSON writer reads the entries in order without sorting them. Keys
/// are matched as `String`s are compared (canonical equivalence), as a dictionary's are: of two
/// equivalent spellings the first one added is kept.
public struct ObjectCategories: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One category and its count.
    public struct Entry: Sendable, Equatable {
        /// The category key, e.g. `"chair"`.
        public var key: String
        /// How many objects have it.
        public var count: Int
    }

    /// The entries, keys in UTF-8 byte order, each key once.
    public private(set) var entries: [Entry] = []

    /// No categories.
    public init() {}

    /// The counts of `dictionary` (sorted once: a key at a time would cost a search each).
    public init(_ dictionary: [String: Int]) {
        entries = dictionary.map { Entry(key: $0.key, count: $0.value) }
        entries.sort { JSONText.utf8Precedes($0.key, $1.key) }
    }

    /// How many times each of `keys` appears (of two equivalent spellings the first is kept).
    /// Past `linearLimit` different keys the counting goes on in a dictionary and is sorted once:
    /// a hostile room's 10,000 different categories would otherwise cost a search each.
    public init<Keys: Sequence<String>>(counting keys: Keys) {
        var few = ObjectCategories()
        var counts: [String: Int]?
        for key in keys {
            if counts != nil {
                counts![key, default: 0] += 1
                continue
            }
            few.add(key)
            if few.count > Self.linearLimit {
                counts = Dictionary(uniqueKeysWithValues: few.entries.map { ($0.key, $0.count) })
            }
        }
        self = counts.map { ObjectCategories($0) } ?? few
    }

    /// Different keys up to which a key is found by comparing it with each.
    static let linearLimit = 32

    /// The counts of a literal such as `["chair": 2]` (a key written twice keeps the last count).
    public init(dictionaryLiteral elements: (String, Int)...) {
        for (key, count) in elements { self[key] = count }
    }

    /// How many categories there are.
    public var count: Int { entries.count }

    /// Whether there are none.
    public var isEmpty: Bool { entries.isEmpty }

    /// Makes room for `capacity` categories without growing the storage again.
    public mutating func reserveCapacity(_ capacity: Int) { entries.reserveCapacity(capacity) }

    /// The count of `key`, nil when it has none; setting nil removes the key.
    public subscript(key: String) -> Int? {
        get { index(of: key).map { entries[$0].count } }
        set {
            if let i = index(of: key) {
                if let newValue { entries[i].count = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                add(key, newValue)
            }
        }
    }

    /// Adds `amount` to the count of `key` (a new key starts at 0).
    public mutating func add(_ key: String, _ amount: Int = 1) {
        if let i = index(of: key) {
            entries[i].count += amount
            return
        }
        // Appended, then moved down past the keys it precedes: for a room's handful of keys a
        // few swaps cost less than the array's general insert.
        entries.append(Entry(key: key, count: amount))
        var i = entries.count - 1
        while i > 0, JSONText.utf8Precedes(key, entries[i - 1].key) {
            entries.swapAt(i, i - 1)
            i -= 1
        }
    }

    /// The entries in order.
    public func makeIterator() -> IndexingIterator<[Entry]> { entries.makeIterator() }

    /// Whether both hold the same keys (as `String`s compare) with the same counts, as two
    /// dictionaries are equal.
    public static func == (lhs: ObjectCategories, rhs: ObjectCategories) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.entries == rhs.entries { return true }
        if lhs.count <= linearLimit { return lhs.entries.allSatisfy { rhs[$0.key] == $0.count } }
        return lhs.dictionary == rhs.dictionary
    }

    // The counts by key (each key is there once, as `String`s compare).
    private var dictionary: [String: Int] {
        Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.count) })
    }

    // The entry whose key equals `key` (as `String`s compare).
    private func index(of key: String) -> Int? {
        entries.firstIndex { $0.key == key }
    }
}
