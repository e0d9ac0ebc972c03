/// A summary as it was before a run replaced it (a summary-history row, the parts a plan's
/// apply compares).
package struct ReplacedSummary: Sendable, Equatable {
    /// The record's key.
    package var seq: Int64
    /// The run that replaced it.
    package var run: Int64
    /// Its summary version.
    package var version: Int
    /// Its JSON.
    package var json: String

    /// Creates a history entry.
    package init(seq: Int64, run: Int64, version: Int, json: String) {
        (self.seq, self.run, self.version, self.json) = (seq, run, version, json)
    }
}
