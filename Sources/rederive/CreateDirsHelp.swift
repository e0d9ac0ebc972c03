/// A command that creates its store when it is absent, worded for `--create-dirs`' help
/// (`StoreCreation`): the flag means the same everywhere, its help names the command's store.
protocol CreateDirsHelp {
    /// The help line of the command's `--create-dirs`.
    static var createDirsHelp: String { get }
}
