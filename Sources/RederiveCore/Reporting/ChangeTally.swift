/// What a derive would write, counted while it previews: the basis of `--max-changes` and of
/// plans. A SHA-256 digest over every record that would be written (key, stored summary, new
/// summary) lets an apply prove it writes exactly what the plan previewed: no other set of
/// writes can be made to have the same digest. It is the SHA-256 of each write's own SHA-256
/// (`leaf`), in key order, so the workers hash the writes beside their derive and the one
/// thread that keeps the order adds 32 bytes a record.
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

    /// Records a would-be write of `newJSON` over `stored` (nil: no summary yet) at `seq`;
    /// `leaf` is that write's `leaf(seq:stored:storedVersion:newJSON:)` when already computed.
    mutating func write(seq: Int64, stored: String?, storedVersion: Int?, newJSON: [UInt8], leaf: Leaf? = nil) {
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
        let leaf = leaf ?? Self.leaf(seq: seq, stored: stored, storedVersion: storedVersion, newJSON: newJSON)
        leaf.digest.withUnsafeBytes { digest.update($0) }
    }

    /// One write's own digest, the part of `digest` that a worker computes.
    struct Leaf: Sendable {
        fileprivate let digest: [UInt8]
    }

    /// The digest of the write of `newJSON` over `stored` at `seq`: the key, the stored version,
    /// both lengths and whether the new text is the stored one, then the stored text and the new
    /// one unless it is the same (a version-only rewrite hashes its text once).
    static func leaf(seq: Int64, stored: String?, storedVersion: Int?, newJSON: [UInt8]) -> Leaf {
        var hash = SHA256()
        let stored = stored ?? ""
        let same: Int64 = JSONText.sameBytes(stored, newJSON) ? 1 : 0
        let head = (seq, Int64(storedVersion ?? -1), Int64(stored.utf8.count), Int64(newJSON.count), same)
        withUnsafeBytes(
            of: (
                head.0.littleEndian, head.1.littleEndian, head.2.littleEndian, head.3.littleEndian,
                head.4.littleEndian
            )
        ) { hash.update($0) }
        hash.update(stored.utf8)
        if same == 0 { hash.update(newJSON) }
        return Leaf(digest: hash.finalized())
    }

    /// The rewrites in the preview's words: `N existing summaries would be rewritten (C would
    /// change, U unchanged: version/fingerprint only)`, so a refusal and the preview agree.
    public var rewritesText: String {
        let (rewrites, versionOnly) = (counts.rewrites, counts.rewrites - valueChanges)
        return "\(rewrites) of \(counts.examined) existing summar\(rewrites == 1 ? "y" : "ies") would be rewritten "
            + "(\(valueChanges) would change, \(versionOnly) unchanged: version/fingerprint only)"
    }
}
