import RederiveCore

extension PostgresStore {
    /// A channel of its own (one more connection): the governor reads the control from the
    /// run's driver thread while the reader and writer sessions belong to the prefetcher and
    /// the writer thread.
    package func openRunControls() throws(RederiveError) -> (any RunControls)? {
        do {
            return try PostgresRunControls(conninfo: conninfo, path: path, workerName: workerName)
        } catch {
            throw .io(Self.cannotConnect(path, error))
        }
    }
}
