import Logging

/// The CLI's logger (bootstrapped by `OutputOptions.bootstrap()`).
let logger = Logger(label: "rederive")

import Foundation

/// The command line as typed, for the run history and the run lock, without the password of
/// any URL in it (`--db postgres://user:secret@…`): the history is kept in the store, which
/// others may read.
var commandLineText: String { withoutPasswords(CommandLine.arguments.dropFirst().joined(separator: " ")) }

/// `text` with every URL's password left out (`scheme://user:secret@host` → `scheme://user@host`).
func withoutPasswords(_ text: String) -> String {
    text.replacingOccurrences(of: #"(://[^:/@\s]*):[^@/\s]*@"#, with: "$1@", options: .regularExpression)
}
