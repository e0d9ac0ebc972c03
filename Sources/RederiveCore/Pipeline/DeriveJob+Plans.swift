import Foundation
import Logging

extension DeriveJob {
    /// Applies `plan` exactly: refuses, writing nothing, unless the store, the deriver and
    /// the selection still match and the records to write are still the ones previewed.
    /// Records added after the plan are left out (and named in the log). The apply is one
    /// recorded run under the plan's key: run again after a crash, kill or signal it finishes
    /// that run (what it wrote as planned counts as done, see `PlanProgress`); run again
    /// after it completed it writes nothing and says which run applied the plan.
    ///
    /// Any number of processes and hosts may apply the same plan at once or join it while it
    /// runs: on an engine with range claims they share the plan's run, each claiming ranges
    /// (see `DeriveRangeClaims`); each checks the plan first, counting what the plan's run
    /// committed meanwhile as done.
    ///
    /// The check derives every planned record; the write stores those results (`DeriveSpill`)
    /// and derives again only a record whose raw room changed since, or that has none.
    package static func apply(
        _ plan: DerivePlan, config: DeriveConfiguration,
        store: any DeriveSource & DeriveWriter
    ) throws(RederiveError) -> RunReport {
        let log = Logger(label: "rederive.derive")
        let id = try store.storeID()
        guard plan.store.id == id else {
            throw .refused(
                "the plan was made for another store (id \(plan.store.id) at \(plan.store.path)); "
                    + "\(store.path) is \(id). Nothing was written")
        }
        let deriver = config.deriver
        guard plan.summaryVersion == deriver.version, plan.fingerprint == deriver.fingerprint else {
            throw .refused(PlanProgress.wrongBuild(plan, deriver: deriver))
        }
        var config = config
        config.selection = plan.deriveSelection
        config.settings.allowDowngrade = plan.allowDowngrade
        config.upperBound = plan.store.highWaterMark
        config.maxChanges = nil
        let runs = try store.runs(resumeKey: plan.runKey)
        if case .applied(let run) = PlanProgress.state(of: runs) {
            return alreadyApplied(by: run, deriver: deriver, store: store)
        }
        let progress = PlanProgress(runs: runs, madeAfterRun: plan.store.lastRunID)
        var check = config
        check.planProgress = progress
        // Other processes and hosts may be applying the plan while this one checks it: what
        // their run (under the plan's key) commits meanwhile is the plan's, not a change.
        check.planRunKey = plan.runKey
        check.selection.writtenAfterRun = progress.madeAfterRun
        // What the check derives is spilled for the write (`DeriveSpill`): each record is derived
        // once. Without a temporary file the write derives as it goes.
        let spill = config.spill ?? DeriveSpill()
        if spill == nil { log.notice("no temporary file for the plan check's results: the write derives again") }
        check.spill = spill
        // A signal during the check (it reads every planned record) stops the apply there.
        let now = try count(check, store: store, stoppable: true)
        if RunControl.receivedSignal != nil {
            return .stoppedBeforeWriting(command: "derive", deriver: deriver, during: "the plan check")
        }
        // ...and they may have finished it meanwhile: then there is nothing left to join.
        let runsNow = try store.runs(resumeKey: plan.runKey)
        let stateNow = PlanProgress.state(of: runsNow)
        if case .applied(let run) = stateNow { return alreadyApplied(by: run, deriver: deriver, store: store) }
        guard PlanProgress.matches(now.tally, plan) else {
            throw .refused(
                PlanProgress.refusal(
                    now.tally, plan, outside: now.outside, outsideCount: now.outsideCount, resumed: !runsNow.isEmpty))
        }
        if let wrong = PlanProgress.misdescription(now.tally, plan) { throw .refused(wrong) }
        if case .unfinished(let earlier) = stateNow {
            let text =
                "finishing this plan's apply (run \(earlier.map(String.init).joined(separator: ", ")) stopped before "
                + "the end, or other processes are applying it now): \(now.done) of "
                + "\(plan.counts.rewrites + plan.counts.additions) planned writes are done"
            log.notice("\(text)")
        }
        if let text = try PlanProgress.addedAfterPlan(plan, config: config, store: store) { log.notice("\(text)") }
        config.planRunKey = plan.runKey
        config.spill = spill
        let report = try BatchRunner.run(DeriveJob(config, store: store, mode: .apply), settings: config.settings)
        if let usage = spill?.usage {
            let text =
                "the write took \(usage.reused) records from the plan check (\(usage.bytes / 1024) kB spilled) "
                + "and derived \(usage.derivedAgain) again" + (usage.stopped.map { " (spilling stopped: \($0))" } ?? "")
            log.info("\(text)")
        }
        // Earlier runs of the plan that are not this one (a failed run is not reopened) wrote part of it too.
        let writers = Set(runsNow.map(\.id) + [report.runID]).sorted()
        let undo = writers.map { "`rederive revert --db \(store.path) --run \($0)`" }.joined(separator: ", then ")
        log.notice("undo this backfill with \(undo)", metadata: ["run": "\(report.runID)"])
        return report
    }

    /// The report of an apply whose plan run `run` already applied: nothing written.
    private static func alreadyApplied(
        by run: Int64, deriver: SummaryDeriver, store: any DeriveSource & DeriveWriter
    ) -> RunReport {
        .nothingLeft(
            runID: run, command: "derive", deriver: deriver, note: appliedNote(by: run, storePath: store.path))
    }

    /// What a run that finds the plan applied says.
    static func appliedNote(by run: Int64, storePath: String) -> String {
        "this plan was already applied by run \(run); nothing written "
            + "(undo it with `rederive revert --db \(storePath) --run \(run)`)"
    }

    /// What a worker of `--processes N` that finds its group's run completed says.
    static func groupFinishedNote(by run: Int64) -> String {
        "run \(run) was finished by the other worker processes; nothing left to do"
    }

    /// The plan for what `preview` found on `store`, whatever its engine.
    package static func plan(
        _ report: ChangeReport, config: DeriveConfiguration,
        store: any DeriveSource & DeriveWriter
    ) throws(RederiveError) -> DerivePlan {
        guard let tally = report.tally, let upper = report.highWaterMark else {
            throw .usage("a plan needs a preview made by this build")
        }
        let s = config.selection
        return DerivePlan(
            format: DerivePlan.currentFormat,
            createdAt: ReferenceDate.iso8601(secondsSinceReferenceDate: Date().timeIntervalSinceReferenceDate),
            store: .init(
                path: store.path, id: try store.storeID(), highWaterMark: upper, lastRunID: report.lastRunID),
            summaryVersion: config.deriver.version, fingerprint: config.deriver.fingerprint,
            selection: s.description, all: s.all, ids: s.ids, since: s.since, retryFailed: s.retryFailed,
            allowDowngrade: config.settings.allowDowngrade,
            counts: tally.counts,
            fieldChanges: Dictionary(
                uniqueKeysWithValues: report.fields.filter { $0.changed > 0 }.map { ($0.key, $0.changed) }),
            digest: tally.digest.hex)
    }
}
