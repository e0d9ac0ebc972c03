import ArgumentParser
import Foundation
import RederiveCore

/// `rederive revert --run N`: undo what one run overwrote.
struct Revert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore the summaries a run replaced (undo a backfill).",
        discussion: """
            Every run that changes an existing summary keeps the previous one (values, \
            version, fingerprint, run) in the store's summary history, in the same \
            transaction. revert --run N puts those back, except where a later run has changed \
            the record since: those are conflicts, left untouched and named in the log. A \
            record that already holds what would be restored counts as already reverted, so \
            reverting twice is harmless. The revert is itself a recorded run (its own \
            overwrites go to the history: revert it to redo run N) and continues after a \
            crash or a signal when the same command is run again. A run whose history \
            `history --prune` deleted has nothing left to restore: the revert says so and \
            exits 3. --dry-run --json lists every record it would restore, with the fields \
            that would change (current → restored).

            Examples:
              rederive revert --db out/demo.sqlite --run 7 --dry-run
              rederive revert --db out/demo.sqlite --run 7

            Exit status: 0 done, 3 the run's history was pruned (nothing, or less, restored), \
            1 usage error (no such run), 2 fatal I/O, 6 another writing \
            run holds the store, 9 paused (--exit-when-paused: rerun after `rederive resume`), \
            130/143 stopped by a signal (rerun to continue).
            """
    )

    @Option(
        help: "The store: a SQLite file or postgres://user@host:port/dbname (must exist).", completion: .file())
    var db: String

    @Option(
        name: .customLong("run"), parsing: .unconditional,
        help: "The run whose overwrites to undo (see `rederive status`).")
    var runID: Int64

    @Flag(
        name: .customLong("dry-run"),
        help: "Only say what would be restored (ids and fields) and the conflicts; write nothing.")
    var dryRun = false

    @Option(
        name: .customLong("batch-size"), parsing: .unconditional,
        help: "Summaries per batch: one transaction each (default: \(RunSettings.defaultBatchSize)).")
    var batchSize: Int?

    @OptionGroup var locking: LockOptions

    @OptionGroup var output: OutputOptions

    @OptionGroup var sharing: SharingOptions

    func validate() throws {
        if runID < 1 { throw ValidationError("--run must be a run id (1 or more)") }
        if let batchSize, batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
    }

    func run() throws {
        output.bootstrap()
        let status = CommandRunner.run(tracing: output, command: "revert") {
            try output.checkOutputs(stores: [db])
            let settings = sharing.applied(
                to: RunSettings(batchSize: batchSize ?? RunSettings.defaultBatchSize, arguments: commandLineText))
            let config = RevertConfiguration(run: runID, dryRun: dryRun, settings: settings)
            if dryRun {
                let store = try ExistingStore.open(db)
                defer { store.close() }
                return try output.finish([try RevertJob.run(config, store: store)])
            }
            return try ExistingStore.withLockedStore(db, locking: locking) { store in
                RunControl.installSignalHandlers()
                return try output.finish([try RevertJob.run(config, store: store)])
            }
        }
        throw ExitCode(status)
    }
}
