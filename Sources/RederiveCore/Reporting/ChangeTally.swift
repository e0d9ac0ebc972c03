/// What a derive would write, counted while it previews: the basis of `--max-changes` and of
/// plans. A SHA-256 digest over every record that would be written (key, stored summary, new
/// summary) lets an apply prove it writes exactly what the plan previewed: no other set of
/// writes can be made to have the same digest.
public struct ChangeTally: Sendable, Equatable {
    /// What would be done (what a plan keeps).
    public var counts = ChangeCounts()
    /// Of `counts.rewrites`, those whose values change (the rest: version/fingerprint only),
    /// in the preview's words "would change".
    public var valueChanges = 0
    /// Digest of every write, in key order.
    public var digest = SHA256()
    /// Whether `write` counts `fieldChanges`: it parses both summaries of each changed record,
    /// so only a plan's apply, which checks the plan's `fieldChanges`, asks for it.
    var countsFields = false
    /// Changed records per summary field, as the preview counts them
    /// (`ChangeCollector.changedKeys`), when `countsFields`.
    public var fieldChanges: [String: Int] = [:]

    /// An empty tally.
    public init() {}

    /// Records a would-be write of `newJSON` over `stored` (nil: no summary yet) at `seq`.
    mutating func write(seq: Int64, stored: String?, storedVersion: Int?, newJSON: [UInt8]) {
        if let stored {
            counts.rewrites += 1
            if !JSONText.sameBytes(stored, newJSON) {
                valueChanges += 1
                if countsFields {
                    for key in ChangeCollector.changedKeys(stored: stored, new: newJSON) {
                        fieldChanges[key, default: 0] += 1
                    }
                }
            }
        } else {
            counts.additions += 1
        }
        // Key, stored version and both lengths (so no two writes run together alike), then both texts.
        let stored = stored ?? ""
        let head = (seq, Int64(storedVersion ?? -1), Int64(stored.utf8.count), Int64(newJSON.count))
        withUnsafeBytes(of: (head.0.littleEndian, head.1.littleEndian, head.2.littleEndian, head.3.littleEndian)) {
            digest.update($0)
        }
        digest.update(stored.utf8)
        digest.update(newJSON)
    }

    /// The rewrites in the preview's words: `N existing summaries would be rewritten (C would
    /// change, U unchanged: version/fingerprint only)`, so a refusal and the preview agree.
    public var rewritesText: String {
        let (rewrites, versionOnly) = (counts.rewrites, counts.rewrites - valueChanges)
        return "\(rewrites) of \(counts.examined) existing summar\(rewrites == 1 ? "y" : "ies") would be rewritten "
            + "(\(valueChanges) would change, \(versionOnly) unchanged: version/fingerprint only)"
    }
}
