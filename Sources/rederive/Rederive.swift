import ArgumentParser
import Foundation
import RederiveCore
import RederivePostgres
import RederiveSQLite

/// The `rederive` command: a thin shell over RederiveCore. Each subcommand parses its
/// options, resolves them into a configuration, calls the library, and maps the outcome
/// to an exit code.
@main
struct Rederive: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rederive",
        abstract: "Re-derive room-scan summaries from raw RoomPlan data, in bulk.",
        discussion: """
            Exit codes:
              0    all good
              1    usage or configuration error
              2    fatal I/O error (nothing half-written)
              3    finished, but some records were skipped (see the report)
              4    aborted by the error budget (--max-errors / --max-error-rate)
              5    status --check: something needs attention
              6    another writing run holds the store (--wait SECONDS to wait)
              7    refused: --max-changes, or a plan that no longer matches
              8    export kept an output file that holds records (--allow-empty)
              9    paused (--exit-when-paused): the same command carries on after `resume`
              130  interrupted by SIGINT (the batch in hand was committed)
              143  terminated by SIGTERM (the batch in hand was committed)
            """,
        version: RederiveVersion.description,
        subcommands: [
            Run.self, Import.self, Derive.self, Summarize.self, Generate.self, Status.self, Show.self,
            Failures.self, Export.self, Revert.self, History.self, Health.self,
            CopyStore.self, Pause.self, Resume.self, Throttle.self, Floor.self,
        ]
    )

    /// ArgumentParser's message for a usage error, led by the first unknown option when there
    /// is one (ArgumentParser names a missing required option first); a mistyped subcommand
    /// is named as such, with the closest one.
    static func usageMessage(for error: Error) -> String {
        let message = fullMessage(for: error)
        let arguments = Array(CommandLine.arguments.dropFirst())
        // A mistyped subcommand: ArgumentParser would name its first option ("Unknown option '--db'").
        if let unknown = UnknownOptionCheck.unknownSubcommand(in: arguments, of: self) {
            let hint = unknown.suggestion.map { " Did you mean '\($0)'?" } ?? ""
            return "Error: unknown subcommand '\(TerminalText.escaped(unknown.name))'.\(hint)\n"
                + "Usage: rederive <subcommand>\n  See 'rederive --help' for the subcommands."
        }
        guard !message.contains("Unknown option"), let command = UnknownOptionCheck.subcommand(in: arguments, of: self),
            let unknown = UnknownOptionCheck.firstUnknown(in: arguments, command: command, root: self)
        else {
            return message
        }
        let hint = unknown.suggestion.map { " Did you mean '\($0)'?" } ?? ""
        return "Error: Unknown option '\(unknown.option)'.\(hint)\n"
            + message.replacingOccurrences(of: "Error: ", with: "Also: ")
    }

    /// Parses and runs the subcommand; argument errors exit 1 (not ArgumentParser's 64) as
    /// documented.
    static func main() {
        #if os(Linux)
        // Few malloc arenas: worker threads otherwise each keep their own, and freed
        // batch buffers stay resident across them (peak memory, not speed, is what this buys).
        _ = mallopt(-8 /* M_ARENA_MAX */, 2)
        #endif
        // The core knows no engine: the two this build has register here (first: which
        // argument is a connection string is the engine's to say).
        SQLiteStore.register()
        PostgresStore.register()
        // Before anything else: a password on the command line is visible to every local user,
        // and one held in memory must not reach a core file.
        if CommandLineSecrets.hide() > 0 || !(ProcessInfo.processInfo.environment["PGPASSWORD"] ?? "").isEmpty {
            DumpProtection.passwordHeld()
        }
        // Until a command routes signals to a clean stop, a signal removes its temporary files.
        TemporaryFiles.installSignalCleanup()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code.rawValue == 64 {
                FileHandle.standardError.write(Data((usageMessage(for: error) + "\n").utf8))
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}

#if os(Linux)
/// glibc's `mallopt`, which Swift's Glibc module does not export.
@_silgen_name("mallopt")
func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif
