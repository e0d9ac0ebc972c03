/// Where a run starts, decided once for every engine from the latest run under its key
/// (engines read that run, execute the plan, and return `start(newRunID:)`):
///
/// | latest run under the key      | request                                   | plan                       |
/// | ----------------------------- | ----------------------------------------- | -------------------------- |
/// | none, or failed               | any                                       | begin a fresh run          |
/// | completed                     | `onlyJoin`                                | nothing: `alreadyCompleted` |
/// | completed                     | otherwise                                 | begin a fresh run          |
/// | unfinished                    | `asSameRun`; `asSameRunWhereShared` where processes share runs | reopen it |
/// | unfinished                    | otherwise                                 | begin a run continuing it  |
///
/// A reopened run goes on from its checkpoint, bound and saved totals, unless it is still
/// running on an engine whose processes share runs: then it is joined (another process is in
/// it; each reports its own share, and the run's totals are summed over its ranges). A run
/// continued by a new one is marked `crashed` when it was left `running`.
package enum RunStartPlan: Sendable, Equatable {
    /// Nothing begun: the run with this id completed the work under the key.
    case alreadyCompleted(Int64)
    /// A new run, continuing the unfinished latest one when given.
    case begin(continuing: LatestRun?)
    /// The latest run goes on under its own id; `joined`: another process is in it.
    case reopen(LatestRun, joined: Bool)

    /// The plan for `request`, given the latest run under its key; `sharesRuns`: the engine's
    /// processes share one run (it claims ranges).
    package static func decide(_ request: RunStartRequest, latest: LatestRun?, sharesRuns: Bool) -> RunStartPlan {
        guard let latest else { return .begin(continuing: nil) }
        if latest.status == RunStatus.completed.rawValue && request.onlyJoin { return .alreadyCompleted(latest.id) }
        guard latest.isUnfinished else { return .begin(continuing: nil) }
        let sameRun =
            switch request.continuation {
            case .asNewRun: false
            case .asSameRun: true
            case .asSameRunWhereShared: sharesRuns
            }
        guard sameRun else { return .begin(continuing: latest) }
        return .reopen(latest, joined: sharesRuns && latest.status == RunStatus.running.rawValue)
    }

    /// The run this plan reopens (set running again, its end cleared).
    package var reopens: Int64? { if case .reopen(let run, _) = self { run.id } else { nil } }

    /// The run left `running` that the new run continues, to be marked `crashed`.
    package var marksCrashed: Int64? {
        if case .begin(let run?) = self, run.status == RunStatus.running.rawValue { run.id } else { nil }
    }

    /// Whether the plan records a new run (its row: `newRun`).
    package var insertsRun: Bool { if case .begin = self { true } else { false } }

    /// The new run's continuation columns: the run it resumes, its checkpoint and bound.
    package var newRun: (resumedFrom: Int64?, checkpointSeq: Int64?, upperBoundSeq: Int64?) {
        if case .begin(let run?) = self { (run.id, run.checkpointSeq, run.upperBoundSeq) } else { (nil, nil, nil) }
    }

    /// Where the run starts; `newRunID` is the id of the row a `begin` inserted.
    package func start(newRunID: Int64 = 0) -> RunStart {
        switch self {
        case .alreadyCompleted(let id):
            return .completed(by: id)
        case .begin:
            let (resumed, checkpoint, upper) = newRun
            return RunStart(runID: newRunID, resumedFrom: resumed, checkpointSeq: checkpoint, upperBoundSeq: upper)
        case .reopen(let run, joined: true):
            return RunStart(runID: run.id, resumedFrom: nil, checkpointSeq: nil, upperBoundSeq: run.upperBoundSeq)
        case .reopen(let run, joined: false):
            var carried = run.saved
            (carried.carriedRecords, carried.carriedBytes) = (carried.recordsRead, carried.decodedBytes)
            return RunStart(
                runID: run.id, resumedFrom: run.id, checkpointSeq: run.checkpointSeq,
                upperBoundSeq: run.upperBoundSeq, carried: carried)
        }
    }
}
