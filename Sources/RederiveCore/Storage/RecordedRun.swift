/// A run in a store's history, as a plan's apply looks for its own: its id and how it ended.
package struct RecordedRun: Sendable, Equatable {
    /// The run's id.
    package var id: Int64
    /// How it ended (`RunStatus` raw value; `running` also when killed).
    package var status: String

    /// Creates a run entry.
    package init(id: Int64, status: String) { (self.id, self.status) = (id, status) }
}
