/// Where `history --prune` counts what it deleted of each run's history: `store_info` rows
/// `pruned_history_run:N` holding the number of rows (same words on both engines, no schema
/// change).
package enum PrunedHistory {
    /// The key prefix; the run id follows.
    package static let keyPrefix = "pruned_history_run:"
    /// The key for run `run`.
    package static func key(_ run: Int64) -> String { keyPrefix + String(run) }
}
