import ArgumentParser
import RederiveCore

/// The logging options every command takes (README "Common options"): the batch commands
/// through `OutputOptions`, the store readers (`status`, `failures`, `show`, `history`)
/// directly.
struct LogOptions: ParsableArguments {
    @Option(name: .customLong("log-format"), help: "Log lines on stderr as human (default) or json (for log shippers).")
    var logFormat: LogFormat = .human

    @Flag(name: .shortAndLong, help: "Log debug details (files read, batches committed).")
    var verbose = false

    @Flag(name: .shortAndLong, help: "Log only warnings and errors (no tally line, no progress line).")
    var quiet = false

    func validate() throws {
        if verbose && quiet { throw ValidationError("--verbose and --quiet cannot be combined") }
    }

    /// Installs the log handler; call once, first thing in `run()`.
    func bootstrap() {
        StderrLogHandler.bootstrap(format: logFormat, level: quiet ? .warning : verbose ? .debug : .info)
        ProgressLine.isSuppressed = quiet
    }
}
