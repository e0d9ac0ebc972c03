/// `--max-changes`: how many existing summaries a derive may rewrite, as a count (`500`) or a
/// share of the records it examines (`2%`). Above it the run is refused before it writes.
public enum ChangeLimit: Sendable, Equatable, CustomStringConvertible {
    /// At most this many.
    case count(Int)
    /// At most this percentage (0-100) of the examined records.
    case percent(Double)

    /// Parses `N` or `P%`; nil when `text` is neither (or negative).
    public init?(_ text: String) {
        if text.hasSuffix("%") {
            guard let p = Double(text.dropLast()), (0...100).contains(p) else { return nil }
            self = .percent(p)
        } else {
            guard let n = Int(text), n >= 0 else { return nil }
            self = .count(n)
        }
    }

    /// Whether `rewrites` of `examined` records stay within the limit.
    public func allows(rewrites: Int, of examined: Int) -> Bool {
        switch self {
        case .count(let n): rewrites <= n
        case .percent(let p): Double(rewrites) <= Double(examined) * p / 100
        }
    }

    /// As written: `500` or `2%`.
    public var description: String {
        switch self {
        case .count(let n): "\(n)"
        case .percent(let p): p == p.rounded() ? "\(Int(p))%" : "\(p)%"
        }
    }
}
