import ArgumentParser
import RederiveCore

/// Maps library outcomes and errors to exit statuses and stderr messages.
enum CommandRunner {
    static func run(_ body: () throws -> Int32) -> Int32 {
        do {
            return try body()
        } catch let error as RederiveError {
            printError("\(error)")
            return error.exitStatus
        } catch {
            printError("\(error)")
            return 2
        }
    }

    static func printError(_ line: String) {
        logger.error("\(line)")
    }
}
