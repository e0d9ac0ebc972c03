import ArgumentParser
import Foundation
import RederiveCore

/// `rederive copy-store`: one store's records into another (SQLite to PostgreSQL, typically).
struct CopyStore: ParsableCommand, CreateDirsHelp {
    static let configuration = CommandConfiguration(
        commandName: "copy-store",
        abstract: "Copy every record of one store into another (e.g. SQLite to PostgreSQL).",
        discussion: """
            Reads the records of --from (opened read-only: the old store is left untouched) \
            in keyset pages of --batch-size, up to the last record present when the copy \
            started, and writes them to --to (a SQLite file is created when absent; a \
            PostgreSQL database gets its schema), one transaction per page. Each record keeps \
            its id, name, capture time, source file and line, the summary the app wrote and \
            its raw room byte-exact; its summary is derived anew by this build on concurrent \
            workers, as import does (a raw room that no longer decodes is skipped and \
            reported). The copy is a run of --to: a copy stopped by a crash or a signal is \
            finished by running the same command again, and records already copied count as \
            unchanged.

            Also copied, once the records are: the run history (each run keeps its id when \
            --to has it free, as a new store does; the copy's own run comes after them), the \
            summary history (so `rederive revert --run N` of a run made on the old store \
            works on the new one), the failure ledger, records never stored included, with \
            its acknowledgements (failures --ack), and the faulted files (skipped by a nightly \
            import until --retry-files). A rerun copies none of them twice.

            Examples:
              rederive copy-store --from out/rooms.sqlite --to postgres://me@db/rooms
              rederive copy-store --from out/rooms.sqlite --to out/copy.sqlite --json

            Exit status: 0 all good, 3 finished with skipped records, 4 aborted by the error \
            budget, 1 usage error (no such --from store, --from and --to the same store), 2 \
            fatal I/O, 6 another writing run holds --to, 130/143 stopped by SIGINT/SIGTERM \
            (rerun to continue).
            """
    )

    @Option(
        help: "The store to copy: a SQLite file or a postgres:// URL (must exist; opened read-only).",
        completion: .file())
    var from: String

    @Option(
        help: "The store to copy into: a SQLite file (created when absent) or a postgres:// URL.",
        completion: .file())
    var to: String

    @OptionGroup var reporting: ReportOption

    /// `--create-dirs`' help (the flag: `StoreCreation`).
    static let createDirsHelp = "Create the --to store's folder when it does not exist (default: exit 1)."

    @OptionGroup var creation: StoreCreation<CopyStore>

    @OptionGroup var tuning: BatchTuning

    @OptionGroup var locking: LockOptions

    @OptionGroup var output: OutputOptions

    func run() throws {
        output.bootstrap()
        let status = CommandRunner.run(tracing: output, command: "copy-store") {
            try output.checkOutputs([("--report", reporting.report)], stores: [from, to])
            if StoreLocation(from).filePath != nil, !FileManager.default.fileExists(atPath: from) {
                throw RederiveError.usage("\(from): no such store (--from names the store to copy)")
            }
            if Self.sameLocation(from, to) {
                throw RederiveError.usage(
                    "\(RecordStores.redacted(to)): is the store to copy (--from); give --to another store")
            }
            let source = try ExistingStore.open(from)
            defer { source.close() }
            try Self.refuseControlled(source)
            return try creation.withLockedStore(to, locking: locking) { destination in
                let settings = tuning.settings(report: reporting.report, arguments: commandLineText)
                let config = CopyStoreConfiguration(settings: settings)
                let report = try CopyStoreJob.run(config, from: source, to: destination)
                return try output.finish([report], store: destination)
            }
        }
        throw ExitCode(status)
    }

    /// Refuses a source with a pause or a rate in force: the copy's runs have other ids, so the
    /// control would hold the wrong runs (or none), and a copy that starts unpaused is a surprise.
    static func refuseControlled(_ source: any RecordStore) throws {
        guard let controls = try source.openRunControls() else { return }
        defer { controls.closeControls() }
        let set = try controls.allControls().filter { $0.isPaused() || $0.maxRate != nil }
        guard let first = set.first else { return }
        let what = first.isPaused() ? first.pauseText : "throttled to \(first.maxRate ?? 0) records/s"
        let scope = first.runID.map { "run \($0)" } ?? "every run"
        throw RederiveError.usage(
            "\(source.path): \(scope) is \(what); copy-store does not carry the run control over (the copy's runs "
                + "have other ids): lift it first (`rederive resume --db SRC` / `rederive throttle --db SRC --clear`), "
                + "nothing was written")
    }

    /// Whether two locations name the same store: the same file (through links and relative
    /// paths) or the same URL. Two URLs naming one database differently are caught once both
    /// are open, by the stores' identities (`CopyStoreJob.run`).
    static func sameLocation(_ a: String, _ b: String) -> Bool {
        if StoreLocation(a).filePath == nil || StoreLocation(b).filePath == nil { return a == b }
        var (x, y) = (stat(), stat())
        if stat(a, &x) == 0, stat(b, &y) == 0 { return x.st_dev == y.st_dev && x.st_ino == y.st_ino }
        func resolved(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }
        return resolved(a) == resolved(b)
    }
}
