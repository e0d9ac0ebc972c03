import ArgumentParser
import Foundation
import RederiveCore

/// `rederive derive`: re-derive stale stored records.
struct Derive: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Re-derive stored records whose summary is stale (or all of them).",
        discussion: """
            A summary is stale when its summary_version or derivation fingerprint differs \
            from this build's. Records are read in keyset batches (seq > last ORDER BY seq \
            LIMIT --batch-size, up to the last record present when the run started), derived \
            on concurrent workers while the next batch is read, and written by one writer, \
            one transaction per batch. Only the derived columns are written. A stopped run \
            continues where it stopped when the same command is run again. The store must \
            exist (`rederive import` creates one).

            Examples:
              rederive derive --db out/rooms.sqlite
              rederive derive --db out/rooms.sqlite --all --workers 2 --json
              rederive derive --db out/rooms.sqlite --retry-failed

            Dry run: --dry-run opens the store read-only, derives what the same command would, \
            writes nothing to the store (no summaries, no run row; the file stays byte-identical) \
            and reports what would change, field by field, in DB-preview/ (or --preview-out DIR): \
            \(ChangeReport.fileNamesText) (every change, one line a record); --json prints \
            preview.json on stdout. Exit 3 when \
            some records would fail; the error budget does not apply.
              rederive derive --db out/rooms.sqlite --dry-run
              rederive derive --db out/rooms.sqlite --dry-run --preview-out out/p --json

            Backfills: --dry-run --plan FILE also writes a plan; --apply-plan FILE applies \
            exactly that plan and refuses (exit 7, nothing written) when the store, this build \
            or the records to write changed since. The apply is one run: the same command after \
            a crash, kill or signal finishes it, and after it completed says which run applied \
            the plan (exit 0). --max-changes N|P% refuses (exit 7) before \
            writing when more existing summaries would change. Summaries derived by a newer \
            rederive are left alone (counted as newer) unless --allow-downgrade. Every \
            replaced summary is kept: `rederive revert --run N` restores a run's.
              rederive derive --db out/rooms.sqlite --all --dry-run --plan out/plan.json
              rederive derive --db out/rooms.sqlite --apply-plan out/plan.json

            Exit status: 0 all good, 3 finished with skipped records, 4 aborted by the error \
            budget, 1 usage error, 2 fatal I/O, 6 another writing run holds the store, 7 \
            refused by --max-changes or a plan that no longer matches, 130/143 stopped by \
            SIGINT/SIGTERM (batch in hand committed).
            """
    )

    @OptionGroup var options: BatchOptions

    @OptionGroup var output: OutputOptions

    @Flag(help: "Re-derive every record, stale or not.")
    var all = false

    @Option(
        help: "Only these record ids (comma-separated); stale ones only, unless with --all.",
        transform: RecordIDList.parse)
    var ids: RecordIDList?

    @Option(
        help: """
            Only records stored (imported or changed) at or after this ISO 8601 time, e.g. 2026-11-01T00:00:00Z; \
            stale ones only, unless with --all.
            """
    )
    var since: String?

    @Flag(name: .customLong("retry-failed"), help: "Only the records with an open decode/derive failure in the ledger.")
    var retryFailed = false

    @Flag(help: "Write the derived columns even when the new values equal the stored ones.")
    var rewrite = false

    @OptionGroup var preview: PreviewOptions

    @Option(
        name: .customLong("apply-plan"),
        help: ArgumentHelp(
            "Apply a plan made by --dry-run --plan: refused (nothing written, exit 7) when the store, "
                + "the deriver or the records to write changed since.", valueName: "file"),
        completion: .file(extensions: ["json"]))
    var applyPlan: String?

    @Option(
        name: .customLong("max-changes"),
        help: ArgumentHelp(
            "Refuse (nothing written, exit 7) when more existing summaries would change: a count "
                + "or a share of the records examined, e.g. 500 or 2%.", valueName: "N|P%"),
        transform: ChangeLimit.parse)
    var maxChanges: ChangeLimit?

    @OptionGroup var locking: LockOptions

    @OptionGroup var sharing: SharingOptions

    @OptionGroup var health: HealthOptions

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "On a PostgreSQL store: start N worker processes here, each claiming ranges of the same run "
                + "(other hosts may run the same command meanwhile), also for --apply-plan."))
    var processes: Int?

    /// `--dry-run`.
    private var dryRun: Bool { preview.dryRun }

    func validate() throws {
        do { _ = try health.policy() } catch { throw ValidationError(error.description) }
        if preview.plan != nil && !dryRun {
            throw ValidationError("--plan needs --dry-run (a plan is made by a preview)")
        }
        if applyPlan != nil {
            if dryRun { throw ValidationError("--apply-plan and --dry-run cannot be combined") }
            if all || ids != nil || since != nil || retryFailed || options.allowDowngrade {
                throw ValidationError(
                    "--apply-plan applies the plan's own selection: "
                        + "drop --all/--ids/--since/--retry-failed/--allow-downgrade"
                )
            }
        }
        if all && retryFailed { throw ValidationError("--all and --retry-failed cannot be combined") }
        if let processes {
            guard processes >= 1 else { throw ValidationError("--processes must be at least 1") }
            guard StoreLocation(options.db).claimsRanges else {
                throw ValidationError("--processes needs a PostgreSQL store (--db postgres://…); use --workers")
            }
            // An apply is spread like any derive (each process checks the plan, then claims ranges).
            if dryRun || maxChanges != nil {
                throw ValidationError("--processes cannot be combined with --dry-run or --max-changes")
            }
        }
        if preview.previewOut != nil && !dryRun { throw ValidationError("--preview-out needs --dry-run") }
        if rewrite && dryRun { throw ValidationError("--rewrite and --dry-run cannot be combined") }
        if let since, !DeriveSelection.isValidSince(since) {
            throw ValidationError(
                "--since \(since): expected an ISO 8601 date or time, e.g. 2026-11-01 or 2026-11-01T00:00:00Z")
        }
    }

    private var selection: DeriveSelection {
        DeriveSelection(
            all: all, ids: ids?.ids, since: since, retryFailed: retryFailed)
    }

    func run() throws {
        output.bootstrap()
        if dryRun { throw ExitCode(runDry()) }
        if let processes, processes > 1 { throw ExitCode(WorkerProcesses.run(count: processes)) }
        let status = CommandRunner.run(tracing: output, command: "derive") {
            try output.checkOutputs(
                [("--report", options.report)], stores: [options.db], inputs: applyPlan.map { [$0] } ?? [])
            // A mistyped --db must not quietly create (and "derive") an empty store.
            return try ExistingStore.withLockedStore(options.db, locking: locking) { store in
                RunControl.installSignalHandlers()
                var config = DeriveConfiguration(
                    selection: selection, settings: health.applied(to: sharing.applied(to: options.settings)))
                config.rewriteUnchanged = rewrite
                config.maxChanges = maxChanges
                config.processGroup = try EnvironmentSettings.group(ProcessInfo.processInfo.environment)
                if let applyPlan {
                    let plan = try DerivePlan.load(path: applyPlan)
                    let counts = "\(plan.counts.rewrites) rewrites, \(plan.counts.additions) new summaries"
                    logger.info("applying the plan \(applyPlan): \(counts) (\(plan.selection))")
                    return try output.finish(
                        [try DeriveJob.apply(plan, config: config, store: store)], store: store)
                }
                return try output.finish([try DeriveJob.run(config, store: store)], store: store)
            }
        }
        throw ExitCode(status)
    }

    /// `--dry-run`: read-only store, no clean-stop handlers (nothing to commit: a stop ends
    /// the process after removing its temporary files, see `TemporaryFiles`, and the preview
    /// files are only ever renamed into place whole).
    private func runDry() -> ExitStatus {
        CommandRunner.run(tracing: output, command: "derive --dry-run") {
            let previewDirectory = preview.directory(forStore: options.db)
            try output.checkOutputs(
                [("--report", options.report)] + preview.outputs(forStore: options.db), stores: [options.db])
            OutputOptions.metricsFileChecked(nil)  // a preview leaves the metrics file alone, failed or not
            try OutputPathCheck.writableFolder(
                previewDirectory,
                what: "--preview-out")
            let store = try ExistingStore.open(options.db)
            defer { store.close() }
            let config = DeriveConfiguration(selection: selection, settings: options.settings)
            let report = try DerivePreviewFlow.run(
                config, store: store, directory: previewDirectory, planPath: preview.plan,
                log: { level, text, _ in logger.log(level: level, "\(text)") })
            if output.json { print(report.json()) }
            return report.exitStatus
        }
    }
}
