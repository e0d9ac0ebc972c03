/// One summary a run replaced, next to what the record holds now (for `rederive revert`).
package struct RevertCandidate: Sendable {
    /// The record (also the keyset key of a revert within the run's history rows).
    var seq: Int64
    /// The record's id.
    var id: String
    /// What the reverted run replaced (to be restored).
    var previous: StoredSummary
    /// What the record holds now; nil if its summary is gone.
    var current: StoredSummary?

    /// Creates a candidate (another engine builds them from its own rows).
    package init(seq: Int64, id: String, previous: StoredSummary, current: StoredSummary?) {
        self.seq = seq
        self.id = id
        self.previous = previous
        self.current = current
    }
}
