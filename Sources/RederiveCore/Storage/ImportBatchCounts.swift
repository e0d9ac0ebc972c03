/// What one import batch did: how many records `ImportPlanner` decided each way (one count
/// per `ImportPlanner.Outcome`, read as `counts[.inserted]`), and the failures new to the ledger.
public struct ImportBatchCounts: Sendable, Equatable {
    /// Records by outcome, in `ImportPlanner.Outcome.allCases` order.
    private var byOutcome = [Int](repeating: 0, count: ImportPlanner.Outcome.allCases.count)
    /// Failures new to the ledger.
    public var newFailures = 0

    /// No counts yet.
    package init() {}

    /// The records decided `outcome`.
    public subscript(_ outcome: ImportPlanner.Outcome) -> Int {
        get { byOutcome[Self.position(outcome)] }
        set { byOutcome[Self.position(outcome)] = newValue }
    }

    private static func position(_ outcome: ImportPlanner.Outcome) -> Int {
        ImportPlanner.Outcome.allCases.firstIndex(of: outcome)!
    }

    /// Counts one record decided so.
    package mutating func count(_ outcome: ImportPlanner.Outcome) { self[outcome] += 1 }

    /// Records written: inserted, updated or re-derived.
    package var written: Int { self[.inserted] + self[.updated] + self[.rederived] }

    /// `stats` with its done, unchanged and newer records set to these counts (the writer's,
    /// which alone knows them).
    package func stated(in stats: RunStatistics) -> RunStatistics {
        var s = stats
        s.recordsDone = written
        s.recordsUnchanged = self[.unchanged]
        s.recordsNewer = self[.newer]
        return s
    }

    /// Adds another batch's counts.
    package mutating func add(_ c: ImportBatchCounts) {
        for i in byOutcome.indices { byOutcome[i] += c.byOutcome[i] }
        newFailures += c.newFailures
    }
}
