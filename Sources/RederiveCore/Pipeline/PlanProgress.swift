/// How far a plan's apply got, and what of the store counts as done by it: the rules a
/// repeated `derive --apply-plan` checks the store against (engines only read the facts).
///
/// An apply is a run recorded under the plan's key (`DerivePlan.runKey`). Run again after a
/// crash, kill or signal, the apply verifies the plan as a whole: a record the plan's own
/// runs wrote with exactly the planned summary counts as written (its planned write is
/// rebuilt from the summary it replaced, kept in the history), every other record must be
/// as the plan found it. Anything else changed outside the plan, and the apply is refused.
package struct PlanProgress: Sendable, Equatable {
    /// Where an apply stands before it starts.
    package enum State: Sendable, Equatable {
        /// No run applied the plan yet.
        case fresh
        /// Runs applied part of it (crashed, killed, stopped or failed): the apply finishes it.
        case unfinished(runs: [Int64])
        /// A run applied all of it.
        case applied(by: Int64)
    }

    /// One record as the verification sees it.
    package enum Verdict: Sendable, Equatable {
        /// The plan's runs wrote its planned summary; `before` is what it replaced (nil: it
        /// was the record's first summary).
        case done(before: ReplacedSummary?)
        /// Run `run`, not the plan's, wrote or replaced its summary after the plan was made.
        case changedOutside(run: Int64)
        /// Neither: it counts as it is stored now.
        case asStored
    }

    /// The runs recorded under the plan's key.
    package var planRuns: Set<Int64>
    /// The last run before the plan was made: later runs that are not the plan's changed
    /// the store outside it.
    package var madeAfterRun: Int64

    /// The progress of a plan made after run `madeAfterRun` (nil for a plan that does not
    /// say: then only runs since the plan's first apply count as later), applied by `runs`.
    package init(runs: [RecordedRun], madeAfterRun: Int64?) {
        planRuns = Set(runs.map(\.id))
        self.madeAfterRun = madeAfterRun ?? ((runs.map(\.id).min() ?? Int64.max) - 1)
    }

    /// Where an apply stands given the runs recorded under its key (any order).
    package static func state(of runs: [RecordedRun]) -> State {
        if let done = runs.filter({ $0.status == RunStatus.completed.rawValue }).map(\.id).min() {
            return .applied(by: done)
        }
        return runs.isEmpty ? .fresh : .unfinished(runs: runs.map(\.id).sorted())
    }

    /// Whether a history row or summary of run `run` is a change made after the plan by
    /// someone else than the plan's runs.
    package func isOutside(_ run: Int64) -> Bool { run > madeAfterRun && !planRuns.contains(run) }

    /// The verdict on one record: `storedRun` wrote its summary (nil: none, or no run);
    /// `planned` says whether that summary is exactly what the plan's deriver makes of it now;
    /// `history` holds its summary-history rows left by runs after the plan.
    package func verdict(storedRun: Int64?, planned: Bool, history: [ReplacedSummary]) -> Verdict {
        if let storedRun, planRuns.contains(storedRun), planned {
            // A later run that replaced it again would have become its writer: the plan's
            // write is the last one, and its history row (if any) is what the plan found.
            return .done(before: history.first { $0.run == storedRun })
        }
        if let storedRun, isOutside(storedRun) { return .changedOutside(run: storedRun) }
        if let other = history.first(where: { isOutside($0.run) }) { return .changedOutside(run: other.run) }
        return .asStored
    }

    /// Whether the tally of the store now (records done by the plan counted as the writes
    /// they were) is the plan's.
    package static func matches(_ now: ChangeTally, _ plan: DerivePlan) -> Bool {
        now.digest.hex == plan.digest && now.counts.rewrites == plan.counts.rewrites
            && now.counts.additions == plan.counts.additions
    }

    /// Why an apply is refused when the writes are the plan's (`matches`) but what the plan
    /// says of them is not what applying it finds: the fields of `plan` that differ from
    /// the tally `now`, named as in the plan's file; nil when it says what it does. Only a
    /// plan edited after it was made says otherwise (its writes' digest is SHA-256).
    package static func misdescription(_ now: ChangeTally, _ plan: DerivePlan) -> String? {
        let (counts, planned) = (now.counts, plan.counts)
        var wrong: [String] = []
        for (name, said, found) in [
            ("examined", planned.examined, counts.examined), ("failing", planned.failing, counts.failing),
            ("unchanged", planned.unchanged, counts.unchanged), ("newer", planned.newer, counts.newer),
        ] where said != found {
            wrong.append("\"counts.\(name)\" says \(said), applying it finds \(found)")
        }
        if now.fieldChanges != plan.fieldChanges {
            let keys = Set(now.fieldChanges.keys).union(plan.fieldChanges.keys)
                .filter { now.fieldChanges[$0] != plan.fieldChanges[$0] }.sorted(by: JSONText.utf8Precedes)
            let shown = keys.prefix(5).map {
                "\(JSONText.string($0)) \(plan.fieldChanges[$0] ?? 0) (finds \(now.fieldChanges[$0] ?? 0))"
            }
            wrong.append("\"fieldChanges\" says " + shown.joined(separator: ", ") + (keys.count > 5 ? ", …" : ""))
        }
        guard !wrong.isEmpty else { return nil }
        return "\(plan.file ?? "the plan"): the plan does not say what it applies (edited after it was made?): "
            + wrong.joined(separator: "; ") + ". Preview again and make a new plan. Nothing was written"
    }

    /// Why an apply is refused when `matches` is false: the counts, and the records changed
    /// outside the plan when they are known (`outside`: the first ids, `outsideCount`: all).
    package static func refusal(
        _ now: ChangeTally, _ plan: DerivePlan, outside: [String], outsideCount: Int, resumed: Bool
    ) -> String {
        let (counts, planned) = (now.counts, plan.counts)
        var text =
            "the store changed since the plan: \(counts.rewrites) rewrites and \(counts.additions) new summaries now, "
            + "\(planned.rewrites) and \(planned.additions) in the plan"
        if resumed { text += " (counting what this plan's earlier runs wrote as done)" }
        if outsideCount > 0 {
            let more = outsideCount > outside.count ? " and \(outsideCount - outside.count) more" : ""
            text +=
                ". Changed outside the plan: \(outsideCount) record\(outsideCount == 1 ? "" : "s"), "
                + outside.joined(separator: ", ") + more
        }
        return text + ". Preview again and make a new plan. Nothing was written"
    }
}

extension PlanProgress {
    /// Why `deriver` refuses `plan` made by another derivation. A plan of a newer build says to
    /// run it with that build (an older binary, e.g. the installed one after `make build`, must
    /// not make a new plan that undoes the fix); a plan of an older build says to make a new one.
    static func wrongBuild(_ plan: DerivePlan, deriver: SummaryDeriver) -> String {
        let made = "build \(plan.build ?? "unknown") (summary version \(plan.summaryVersion), \(plan.fingerprint))"
        let this = "rederive \(RederiveVersion.build) (summary version \(deriver.version), \(deriver.fingerprint))"
        if plan.summaryVersion > deriver.version {
            return "this plan was made by \(made); this binary is older, \(this): run the plan with that build "
                + "(or install it: `make install`). Nothing was written"
        }
        return "the plan was made by \(made); this build is \(this). Make a new plan with this build. "
            + "Nothing was written"
    }

    /// The notice about records imported after `plan` was made (not part of it): how many,
    /// how many of them need deriving, and the command for those; nil when there are none.
    /// Records a build of the plan's derivation derived at import are fresh: nothing to do.
    static func addedAfterPlan(
        _ plan: DerivePlan, config: DeriveConfiguration, store: any DeriveSource
    ) throws(RederiveError) -> String? {
        let after = plan.store.highWaterMark
        let (deriver, downgrade) = (config.deriver, plan.allowDowngrade)
        let added = try store.countSelected(
            config.selection, deriver: deriver, allowDowngrade: downgrade, after: after, upTo: Int64.max)
        guard added > 0 else { return nil }
        var stale = config.selection
        stale.all = false
        let toDerive = try store.countSelected(
            stale, deriver: deriver, allowDowngrade: downgrade, after: after, upTo: Int64.max)
        let ids = try store.selectedIDs(stale, deriver: deriver, allowDowngrade: downgrade, after: after, limit: 6)
        let head =
            "\(added) record\(added == 1 ? "" : "s") imported after the plan "
            + "\(added == 1 ? "is" : "are") not part of it"
        guard toDerive > 0 else { return head + "; all already fresh (derived when imported): nothing to do" }
        let shown = ids.prefix(5).joined(separator: ", ") + (toDerive > 5 ? ", …" : "")
        return head + "; \(toDerive) of them need deriving (\(shown)): "
            + StoreStatus.staleHint(rewrites: 1, missing: 0, db: store.path)
    }
}
