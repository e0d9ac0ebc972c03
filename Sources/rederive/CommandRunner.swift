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

    static func printError(_ line: String) {
        logger.error("\(line)")
    }
}

extension ExitCode {
    /// The process exit code of `status`.
    init(_ status: ExitStatus) { self.init(status.rawValue) }
}
