import ArgumentParser
import Foundation
import RederiveCore

/// `rederive failures`: the open failures in a store's ledger, one per line.
struct Failures: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the open failures in a store's ledger, with the original file and line.",
        discussion: """
            Opens the store read-only (nothing in it is modified). Lists every open failure \
            (a record, line or file that could not be processed and has not gone through \
            since): the export file and line it came from, stage, code, record id when known, \
            the run that last saw it, when it was first seen, and the message. Sorted by file, \
            then line (file-level faults after the lines of their file), then stage and code.

            Filters combine: --stage, --code, --file (the path as recorded, or its last \
            components, e.g. rooms-v2.jsonl) and --run (the run that last saw it). --json \
            prints one JSON object: {store, count, failures: [{id, file, line, stage, code, \
            message, run, firstSeenAt, lastSeenAt, key}]}.

            Examples:
              rederive failures --db out/rooms.sqlite
              rederive failures --db out/rooms.sqlite --code negative_dimension
              rederive failures --db out/rooms.sqlite --file rooms-v2.jsonl --json

            Exit status: 0 listed (also when there are none), 1 usage error, 2 I/O error.
            """
    )

    @Option(
        help: "The store: a SQLite file or postgres://user@host:port/dbname (must exist; opened read-only).",
        completion: .file())
    var db: String

    @Option(help: "Only this stage (\(RecordIssue.Stage.allCases.map(\.rawValue).joined(separator: ", "))).")
    var stage: String?

    @Option(help: "Only this code, e.g. invalid_json.")
    var code: String?

    @Option(help: "Only this export file (as recorded, or its last path components).", completion: .file())
    var file: String?

    @Option(name: .customLong("run"), help: "Only failures last seen by this run id.")
    var runID: Int64?

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func validate() throws {
        if let stage, RecordIssue.Stage(rawValue: stage) == nil {
            let known = RecordIssue.Stage.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("--stage \(stage): unknown stage (known: \(known))")
        }
    }

    func run() throws {
        StderrLogHandler.bootstrap(format: .human, level: .info)
        let status = CommandRunner.run {
            let store = try ExistingStore.open(db)
            defer { store.close() }
            let filter = FailureFilter(stage: stage, code: code, file: file, runID: runID)
            let failures = try store.openFailures(matching: filter)
            print(
                json ? OpenFailure.json(failures, store: store.path) : OpenFailure.text(failures),
                terminator: json ? "\n" : "")
            return .ok
        }
        throw ExitCode(status)
    }
}
