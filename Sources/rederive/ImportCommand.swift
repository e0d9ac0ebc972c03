import ArgumentParser
import Foundation
import RederiveCore

/// `rederive import`: exports into the store.
struct Import: ParsableCommand, CreateDirsHelp {
    static let configuration = CommandConfiguration(
        abstract: "Import exports into the store, deriving every record's summary.",
        discussion: """
            Reads *.jsonl and *.jsonl.zst exports (directories are searched; - reads one \
            export from standard input, plain or zstd, recognised by its first bytes), \
            upgrades records to the current format, derives summaries on concurrent workers \
            and upserts them with one writer, one transaction per batch. Importing the same \
            export twice changes nothing; a record whose raw data changed is updated and \
            re-derived. A run stopped by a crash or a signal is finished by running the same \
            command again. The store is created when absent (a notice says so); its folder \
            must exist unless --create-dirs (a mistyped --db is an error, not a second store).

            Examples:
              rederive import Fixtures/exports --db out/rooms.sqlite --report out/i.jsonl
              zstd -dc rooms.jsonl.zst | rederive import - --db out/rooms.sqlite

            Exit status: 0 all good, 3 finished with skipped records, 4 aborted by the error \
            budget, 1 usage error, 2 fatal I/O, 6 another writing run holds the store, 9 paused \
            (--exit-when-paused: run it again after `rederive resume`), 130/143 stopped by \
            SIGINT/SIGTERM (batch in hand committed).
            """
    )

    @Argument(
        help: "Export files (*.jsonl, *.jsonl.zst), directories holding them, or - for standard input.",
        completion: .file(extensions: ["jsonl", "zst"]))
    var paths: [String]

    @OptionGroup var options: BatchOptions

    @OptionGroup var locking: LockOptions

    @OptionGroup var output: OutputOptions

    @OptionGroup var sharing: SharingOptions

    @Flag(
        name: .customLong("skip-imported-files"),
        help: "Skip files whose content (hash) was already imported, or ended in a file fault.")
    var skipImportedFiles = false

    /// `--create-dirs`' help (the flag: `StoreCreation`).
    static let createDirsHelp = "Create the store's folder when it does not exist (default: exit 1)."

    @OptionGroup var creation: StoreCreation<Import>

    @Flag(
        name: .customLong("retry-files"),
        help: "With --skip-imported-files, read files that ended in a file fault before again.")
    var retryFiles = false

    func validate() throws {
        // Without --skip-imported-files every file is read anyway (a pipeline file refuses the same).
        if retryFiles && !skipImportedFiles {
            throw ValidationError("--retry-files needs --skip-imported-files (without it every file is read anyway)")
        }
    }

    func run() throws {
        output.bootstrap()
        let status = CommandRunner.run(tracing: output, command: "import") {
            let input = try StandardInputExport.resolve(paths)
            defer { withExtendedLifetime(input.spool) {} }
            let files = try ExportFiles.resolve(input.paths)
            try output.checkOutputs([("--report", options.report)], stores: [options.db], inputs: files)
            return try creation.withLockedStore(options.db, locking: locking) { store in
                var config = ImportConfiguration(
                    files: files, skipImportedFiles: skipImportedFiles,
                    settings: sharing.applied(to: options.settings))
                config.retryFiles = retryFiles
                return try output.finish([try ImportJob.run(config, store: store)], store: store)
            }
        }
        throw ExitCode(status)
    }
}
