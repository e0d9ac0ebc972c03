import Foundation

extension DeriveJob {
    /// Runs the derivation over `store`, whatever its engine. On an engine with range claims
    /// this process claims ranges next to any other process deriving the same selection.
    package static func run(
        _ config: DeriveConfiguration, store: any DeriveSource & DeriveWriter
    ) throws(RederiveError) -> RunReport {
        try config.selection.validate()
        if let limit = config.maxChanges {
            // Counted by a dry pass first: the guard must hold before the first write. A signal
            // during it stops the command there, nothing written.
            let tally = try count(config, store: store, stoppable: true).tally
            if RunControl.receivedSignal != nil {
                return .stoppedBeforeWriting(
                    command: "derive", deriver: config.deriver, during: "the max-changes count")
            }
            guard limit.allows(rewrites: tally.counts.rewrites, of: tally.counts.examined) else {
                throw .refused(
                    "\(tally.rewritesText), more than "
                        + "max-changes \(limit) allows; nothing was written. A calculation change is a backfill: "
                        + "preview it and apply the plan (`rederive derive --all --dry-run --plan FILE`, then "
                        + "`rederive derive --apply-plan FILE`; `make backfill DB=…`)")
            }
        }
        if config.processGroup != nil, config.planRunKey == nil,
            let done = try store.runs(resumeKey: config.runKey).last(where: {
                $0.status == RunStatus.completed.rawValue
            })
        {
            // A worker of `--processes N` that started after the others finished their run.
            return .nothingLeft(
                runID: done.id, command: "derive", deriver: config.deriver, note: groupFinishedNote(by: done.id))
        }
        let report = try BatchRunner.run(DeriveJob(config, store: store, mode: .apply), settings: config.settings)
        try RevertJob.logUndo(of: report, store: store)
        return report
    }

    /// Counts what `run` would write on `store`, whatever its engine, writing nothing.
    package static func tally(
        _ config: DeriveConfiguration, store: any DeriveSource & DeriveWriter
    ) throws(RederiveError) -> ChangeTally {
        try count(config, store: store).tally
    }

    /// A dry pass that only counts (with a plan's verification when `config` has one).
    /// `stoppable`: SIGINT/SIGTERM end it after the batch in hand (its tally is then partial:
    /// the caller checks `RunControl.receivedSignal` and writes nothing).
    static func count(
        _ config: DeriveConfiguration, store: any DeriveSource & DeriveWriter, stoppable: Bool = false
    ) throws(RederiveError) -> TallyBox {
        try config.selection.validate()
        var settings = config.settings
        settings.control = RunControl(honoursSignals: stoppable)
        settings.reportPath = nil
        settings.showProgress = false
        let counter = TallyBox()
        // A plan's verification checks the plan's counts per field too.
        counter.tally.countsFields = config.planProgress != nil
        _ = try BatchRunner.run(DeriveJob(config, store: store, mode: .preview(nil, counter)), settings: settings)
        return counter
    }

    /// A dry run of `run(_:store:)`: selects, fetches and derives exactly as a derive would,
    /// but writes nothing to the store — no summaries, no run row, no failure ledger — and
    /// returns what would change. Open `store` read-only to be sure the file stays
    /// byte-identical. The error budget and signals are not consulted: there is nothing to
    /// commit, so a preview always examines the whole selection.
    /// `config.settings.reportPath`, when set, still receives the per-record issue report.
    /// `topCount` is how many of the largest changes the report lists.
    package static func preview(
        _ config: DeriveConfiguration, store: any DeriveSource & DeriveWriter,
        topCount: Int = 20
    ) throws(RederiveError) -> ChangeReport {
        try config.selection.validate()
        let deriver = config.deriver
        let collector = ChangeCollector(
            summaryVersion: deriver.version, fingerprint: deriver.fingerprint,
            topCount: topCount)
        var settings = config.settings
        settings.control = RunControl(honoursSignals: false)  // nothing to commit: examine the whole selection
        let counter = TallyBox()
        let run = try BatchRunner.run(
            DeriveJob(config, store: store, mode: .preview(collector, counter)),
            settings: settings)
        var report = collector.report()
        report.store = store.path
        report.selection = config.selection.description
        report.seconds = run.statistics.seconds
        report.tally = counter.tally
        report.highWaterMark = counter.highWaterMark
        report.lastRunID = counter.lastRunID
        return report
    }
}
