import Foundation
import ArgumentParser
import RederiveCore

/// Maps library outcomes and errors to exit statuses and stderr messages.
enum CommandRunner {
    /// Runs `body` once the `REDERIVE_*` variables are checked (`EnvironmentSettings`: a bad
    /// one is a usage error, exit 1), mapping what it throws to an exit status and a message.
    static func run(_ body: () throws -> ExitStatus) -> ExitStatus {
        do {
            try EnvironmentSettings.check(ProcessInfo.processInfo.environment)
            return try body()
        } catch let error as RederiveError {
            printError("\(error)")
            return error.exitStatus
        } catch {
            printError("\(error)")
            return .failure
        }
    }

    /// Runs `body` like `run`, and when a fault ends it, leaves the trace `output` asks for
    /// (`--json`, `--metrics-file`) for `command` before the error line.
    static func run(tracing output: OutputOptions, command: String, _ body: () throws -> ExitStatus) -> ExitStatus {
        run {
            do {
                return try body()
            } catch let error as RederiveError {
                output.trace(failure: error, command: command)
                throw error
            }
        }
    }

    static func printError(_ line: String) {
        logger.error("\(line)")
    }
}

extension ExitCode {
    /// The process exit code of `status`.
    init(_ status: ExitStatus) { self.init(status.rawValue) }
}
