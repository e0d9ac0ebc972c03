import Logging

/// The CLI's logger (bootstrapped by `OutputOptions.bootstrap()`).
let logger = Logger(label: "rederive")

import Foundation
import RederiveCore

/// The command line as typed, for the run history and the run lock, with every store URL in
/// it (`--db postgres://user:secret@…`) in its one redacted form: the history is kept in the
/// store, which others may read.
var commandLineText: String { redactedArguments(CommandLine.arguments.dropFirst()).joined(separator: " ") }

/// `arguments` with each store connection string (a URL, `host=… dbname=…`, or after `--option=`)
/// as `RecordStores.redacted` shows it;
/// an argument that holds `://` elsewhere, which no parser can tell apart, is left out.
func redactedArguments(_ arguments: some Sequence<String>) -> [String] {
    arguments.map { argument in
        if StoreLocation(argument).filePath == nil { return RecordStores.redacted(argument) }
        guard argument.contains("://") else { return argument }
        if argument.hasPrefix("-"), let equals = argument.firstIndex(of: "="),
            case let value = String(argument[argument.index(after: equals)...]), StoreLocation(value).filePath == nil
        {
            return argument[...equals] + RecordStores.redacted(value)
        }
        return "(an argument holding a URL; not shown)"
    }
}
