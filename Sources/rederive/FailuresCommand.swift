import ArgumentParser
import Foundation
import RederiveCore

/// `rederive failures`: the open failures in a store's ledger, one per line; `--ack` and
/// `--unack` mark the known ones for `status --check`.
struct Failures: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "List the open failures in a store's ledger, with the original file and line; acknowledge known ones.",
        discussion: """
            Opens the store read-only (nothing in it is modified). Lists every open failure \
            (a record, line or file that could not be processed and has not gone through \
            since): the export file and line it came from, stage, code, record id when known, \
            the run that last saw it, when it was first seen, and the message. Sorted by file, \
            then line (file-level faults after the lines of their file), then stage and code.

            Filters combine: --stage, --code, --file (the path as recorded, or its last \
            components, e.g. rooms-v2.jsonl), --id (a record id) and --run (the run that last \
            saw it); --acknowledged or --unacknowledged lists only those. --json prints one \
            JSON object: {store, count, failures: [{id, file, line, stage, code, message, run, \
            firstSeenAt, lastSeenAt, key, acknowledgedAt}]}.

            --ack acknowledges the open failures the filters select (at least one of --id, \
            --file, --code, --stage, --run): `rederive status --check` no longer counts them. \
            An acknowledgement covers a failure as it is now: if it clears and comes back, \
            or changes code, it is open again, and failures first seen later are not covered. \
            --unack takes acknowledgements back (all of them without a filter). Both write \
            to the store (under its run lock, --wait as for import) and print how many.

            Examples:
              rederive failures --db out/rooms.sqlite
              rederive failures --db out/rooms.sqlite --code negative_dimension
              rederive failures --db out/rooms.sqlite --file rooms-v2.jsonl --json
              rederive failures --db out/rooms.sqlite --ack --file rooms-v3-corrupt.jsonl
              rederive failures --db out/rooms.sqlite --acknowledged
              rederive failures --db out/rooms.sqlite --unack

            Exit status: 0 listed (also when there are none) or acknowledged, 1 usage error, \
            2 I/O error, 6 another writing run holds the store (--ack, --unack).
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

    @Option(name: .customLong("id"), help: "Only the failures of this record id.")
    var recordID: String?

    @Option(name: .customLong("run"), help: "Only failures last seen by this run id.")
    var runID: Int64?

    @Flag(help: "Only failures acknowledged with --ack.")
    var acknowledged = false

    @Flag(help: "Only failures not acknowledged (what status --check counts).")
    var unacknowledged = false

    @Flag(help: "Acknowledge the selected open failures: status --check no longer counts them.")
    var ack = false

    @Flag(help: "Take back the acknowledgements of the selected failures (all without a filter).")
    var unack = false

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @OptionGroup var locking: LockOptions

    func validate() throws {
        if let stage, RecordIssue.Stage(rawValue: stage) == nil {
            let known = RecordIssue.Stage.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("--stage \(stage): unknown stage (known: \(known))")
        }
        if ack && unack { throw ValidationError("--ack and --unack exclude each other") }
        if acknowledged && unacknowledged {
            throw ValidationError("--acknowledged and --unacknowledged exclude each other")
        }
        if (ack || unack) && (acknowledged || unacknowledged || json) {
            throw ValidationError("--ack and --unack take only --id, --file, --code, --stage and --run")
        }
        if ack && !filter.selectsSome {
            throw ValidationError("--ack needs --id, --file, --code, --stage or --run (what to acknowledge)")
        }
    }

    private var filter: FailureFilter {
        FailureFilter(
            stage: stage, code: code, file: file, runID: runID, recordID: recordID,
            acknowledged: acknowledged ? true : unacknowledged ? false : nil)
    }

    /// `--log-format`, `--quiet`, `--verbose`, as every command takes them.
    @OptionGroup var log: LogOptions

    func run() throws {
        log.bootstrap()
        let status = CommandRunner.run {
            if ack || unack {
                return try ExistingStore.withLockedStore(db, locking: locking) { store in
                    let count =
                        ack
                        ? try store.acknowledgeFailures(
                            matching: filter,
                            at: ReferenceDate.iso8601(secondsSinceReferenceDate: Date().timeIntervalSinceReferenceDate))
                        : try store.unacknowledgeFailures(matching: filter)
                    let plural = count == 1 ? "" : "s"
                    print(
                        ack ? "acknowledged \(count) failure\(plural)" : "took back \(count) acknowledgement\(plural)")
                    return .ok
                }
            }
            let store = try ExistingStore.open(db)
            defer { store.close() }
            let failures = try store.openFailures(matching: filter)
            print(
                json ? OpenFailure.json(failures, store: store.path) : OpenFailure.text(failures),
                terminator: json ? "\n" : "")
            return .ok
        }
        throw ExitCode(status)
    }
}
