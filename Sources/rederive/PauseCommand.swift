import ArgumentParser
import Foundation
import RederiveCore

/// `rederive pause`: pauses one run, or every run of the store, on every host.
struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pause a run (or every run of the store) on every host, between batches.",
        discussion: """
            Writes the pause into the store. Every worker of every process on every host reads
            it before its next batch (at most once a second) and obeys within one batch plus one
            second: the batch in hand is committed, claimed ranges are given back (open at once
            for others, not counted as failed attempts), and the worker waits, reading the
            control about once a second, until `rederive resume` (or --until). A worker started
            with --exit-when-paused exits with status 9 instead; the same command carries on
            later. A paused run continued by a later run stays paused.

            Does not need the run lock: on SQLite it works while a derive holds the store.
            Pausing a finished or unknown run is a usage error (exit 1).

            Examples:
              rederive pause --db out/rooms.sqlite --reason "peak traffic"
              rederive pause --db postgres://app@db/rooms --run 12 --until 2026-11-28T06:00:00Z
            """)

    @Option(help: "The store: a SQLite file or postgres://user@host:port/dbname (must exist).", completion: .file())
    var db: String

    @Option(name: .customLong("run"), parsing: .unconditional, help: "Pause run N only (default: every run).")
    var runID: Int64?

    @Option(help: "Why, shown by `status` and in the logs.")
    var reason: String?

    @Option(help: "End the pause by itself at this ISO 8601 time (e.g. 2026-11-28T06:00:00Z).")
    var until: String?

    func validate() throws {
        if let until {
            guard let utc = TimestampText.utcMilliseconds(until) else {
                throw ValidationError("--until \(until): expected an ISO 8601 date or time, e.g. 2026-11-28T06:00:00Z")
            }
            guard utc > RunControlState.now() else { throw ValidationError("--until \(until) is already past") }
        }
    }

    func run() throws {
        StderrLogHandler.bootstrap(format: .human, level: .info)
        let status = CommandRunner.run {
            try RunControlCommand.withControls(db) { controls, path in
                if let runID { try RunControlCommand.check(run: runID, controls, path: path, unfinishedOnly: true) }
                let by = RunControlState.operatorName
                try controls.pause(
                    runID: runID, by: by, reason: reason, until: until.flatMap(TimestampText.utcMilliseconds))
                let scope = runID.map { "run \($0)" } ?? "every run"
                print(
                    TerminalText.escaped(
                        "paused \(scope) of \(path) (by \(by)); every worker obeys within a batch and a second"))
                return .ok
            }
        }
        throw ExitCode(status)
    }
}
