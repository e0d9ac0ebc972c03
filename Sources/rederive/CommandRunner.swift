import ArgumentParser
import RederiveCore

/// Maps library outcomes and errors to exit statuses and stderr messages.
enum CommandRunner {
    static func run(_ body: () throws -> ExitStatus) -> ExitStatus {
        do {
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
