/// How a command may open its store, whatever its engine: whether it may create one, and
/// whether it writes.
public enum StoreOpenMode: Sendable, Equatable {
    /// Create the store when absent (`import`, a pipeline whose first stage imports).
    case createIfMissing
    /// Open an existing store for writing; a missing one is a usage error, never an
    /// empty store quietly created at a mistyped path (`derive`, `export`, `revert`).
    case existing
    /// Open an existing, up-to-date store without writing anything (`status`, dry runs).
    case readOnly
}
