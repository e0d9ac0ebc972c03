import Logging

/// The CLI's logger (bootstrapped by `OutputOptions.bootstrap()`).
let logger = Logger(label: "rederive")

import Foundation
import RederiveCore

/// The command line as typed, for the run history and the run lock, as `ArgumentRedaction`
/// shows it (every store location in its one redacted form, every other spelling of a password
/// hidden): the history is kept in the store, which others may read.
var commandLineText: String { ArgumentRedaction.shown(CommandLine.arguments.dropFirst()).joined(separator: " ") }
