import ArgumentParser
import RederiveCore

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
              130  interrupted by SIGINT (the batch in hand was committed)
              143  terminated by SIGTERM (the batch in hand was committed)
            """,
        subcommands: [Import.self, Derive.self, Summarize.self, Generate.self, Status.self, Export.self]
    )
}
