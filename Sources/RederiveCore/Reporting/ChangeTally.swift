/// What a derive would write, counted while it previews: the basis of `--max-changes` and of
/// plans. A digest over every record that would be written (key, stored summary, new
/// summary) lets an apply prove it writes exactly what the plan previewed.
public struct ChangeTally: Sendable, Equatable {
    /// Records examined.
    public var examined = 0
    /// Existing summaries that would be rewritten (values, version or fingerprint change).
    public var rewrites = 0
    /// Of `rewrites`, those whose values change (the rest: version/fingerprint only), in the
    /// preview's words "would change".
    public var valueChanges = 0
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
        if let stored {
            rewrites += 1
            if !JSONText.sameBytes(stored, newJSON) { valueChanges += 1 }
        } else {
            additions += 1
        }
        digest.add(seq)
        digest.add(Int64(storedVersion ?? -1))
        digest.add((stored ?? "").utf8)
        digest.add(newJSON)
    }

    /// The rewrites in the preview's words: `N existing summaries would be rewritten (C would
    /// change, U unchanged: version/fingerprint only)`, so a refusal and the preview agree.
    public var rewritesText: String {
        let versionOnly = rewrites - valueChanges
        return "\(rewrites) of \(examined) existing summar\(rewrites == 1 ? "y" : "ies") would be rewritten "
            + "(\(valueChanges) would change, \(versionOnly) unchanged: version/fingerprint only)"
    }
}
