import Logging

/// The CLI's logger (bootstrapped by `OutputOptions.bootstrap()`).
let logger = Logger(label: "rederive")

/// Options shared by the commands that run batches against the store.

/// The command line as typed, for the run history.
var commandLineText: String { CommandLine.arguments.dropFirst().joined(separator: " ") }
