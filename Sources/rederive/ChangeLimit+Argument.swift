import ArgumentParser
import RederiveCore

/// `--max-changes N|P%`.
extension ChangeLimit: CheckedArgument {
    static let expected = "expected a whole number or a percentage, e.g. 500 or 2%"

    /// Parses `N` or `P%` (`ChangeLimit.init(_:)`).
    public init?(argument: String) { self.init(argument) }
}
