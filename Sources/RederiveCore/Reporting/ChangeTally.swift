/// What a derive would write, counted while it previews: the basis of `--max-changes` and of
/// plans. A digest over every record that would be written (key, stored summary, new
/// summary) lets an apply prove it writes exactly what the plan previewed.
public struct ChangeTally: Sendable, Equatable {
    /// Records examined.
    public var examined = 0
    /// Existing summaries that would be rewritten (values, version or fingerprint change).
    public var rewrites = 0
    /// Records with no summary yet that would get one.
    public var additions = 0
    /// Records whose derivation would fail.
    public var failing = 0
    /// Records left as they are.
    public var unchanged = 0
    /// Records left alone because a newer rederive derived them.
    public var newer = 0
    /// Digest of every write, in key order.
    public var digest = RunningHash()

    /// An empty tally.
    public init() {}

    /// Records a would-be write of `newJSON` over `stored` (nil: no summary yet) at `seq`.
    mutating func write(seq: Int64, stored: String?, storedVersion: Int?, newJSON: [UInt8]) {
        if stored == nil { additions += 1 } else { rewrites += 1 }
        digest.add(seq)
        digest.add(Int64(storedVersion ?? -1))
        digest.add((stored ?? "").utf8)
        digest.add(newJSON)
    }
}
