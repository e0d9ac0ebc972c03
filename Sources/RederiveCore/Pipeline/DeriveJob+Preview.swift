extension DeriveJob {
    /// The tally of a dry pass, filled on the driver's thread.
    final class TallyBox {
        var tally = ChangeTally()
        var highWaterMark: Int64 = 0
        /// The last run in the history when the pass started.
        var lastRunID: Int64?
        /// A plan's verification: what counts as done by the plan's runs (starts as the
        /// configuration's, grows when a run of the plan appears during the pass).
        var progress: PlanProgress?
        /// A plan's verification: runs already looked up in the plan's history.
        var lookedUp: Set<Int64> = []
        /// A plan's verification: planned writes its runs did.
        var done = 0
        /// A plan's verification: the first ids changed outside the plan, and how many.
        var outside: [String] = []
        var outsideCount = 0
    }

    /// A plan's verification: the history later runs left for `batch`'s records, by key
    /// (empty when the pass verifies no plan).
    func planHistory(_ batch: [StoredRoom], counter: TallyBox) throws(RederiveError) -> [Int64: [ReplacedSummary]] {
        guard let progress = counter.progress ?? config.planProgress, let first = batch.first, let last = batch.last
        else { return [:] }
        return Dictionary(
            grouping: try store.replacedSummaries(
                afterRun: progress.madeAfterRun, after: first.seq - 1, upTo: last.seq), by: \.seq)
    }

    /// A plan's verification of one record: true when the plan's runs already wrote it (then
    /// counted as the write it was, over what it held before); a record changed outside the
    /// plan is noted and then counted as it is stored, as is any other.
    ///
    /// Processes and hosts apply one plan together: a run recorded under the plan's key
    /// after this pass began (another process that started the apply meanwhile) is the plan's
    /// own, not a change outside it, so an unknown writer is looked up once in the history.
    func countedAsPlanned(
        _ room: StoredRoom, _ result: Result<(RoomSummary, [UInt8]), RecordFailure>, history: [ReplacedSummary],
        counter: TallyBox
    ) throws(RederiveError) -> Bool {
        guard var progress = counter.progress ?? config.planProgress else { return false }
        let planned = if case .success(let (_, json)) = result { isDerived(room, json) } else { false }
        var verdict = progress.verdict(storedRun: room.storedRunID, planned: planned, history: history)
        if case .changedOutside(let run) = verdict, let key = config.planRunKey, !counter.lookedUp.contains(run) {
            let runs = try store.runs(resumeKey: key).map(\.id)
            counter.lookedUp.formUnion(runs + [run])
            progress.planRuns.formUnion(runs)
            counter.progress = progress
            verdict = progress.verdict(storedRun: room.storedRunID, planned: planned, history: history)
        }
        switch verdict {
        case .done(let before):
            if case .success(let (_, json)) = result {
                counter.tally.write(seq: room.seq, stored: before?.json, storedVersion: before?.version, newJSON: json)
            }
            counter.done += 1
            return true
        case .changedOutside:
            counter.outsideCount += 1
            if counter.outside.count < 20 { counter.outside.append(room.id) }
        case .asStored:
            break
        }
        return false
    }
}
