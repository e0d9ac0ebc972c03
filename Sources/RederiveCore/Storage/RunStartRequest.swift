/// What a job asks of the run history when it starts (`RunHistory.beginRun`): the run to
/// record, and how it goes on from an unfinished run under the same key (`RunStartPlan`).
package struct RunStartRequest: Sendable {
    /// How an unfinished latest run under the key is continued.
    package enum Continuation: Sendable, Equatable {
        /// By a new run that names it (an import, a revert, a copy).
        case asNewRun
        /// By the same run, reopened (a plan's apply stays one run, which `revert --run N`
        /// undoes whole).
        case asSameRun
        /// By the same run where the engine's processes share runs (a derive split into
        /// ranges is one run, whichever host started it); elsewhere by a new run.
        case asSameRunWhereShared
    }

    /// The command (`derive`, `import`…).
    package var command: String
    /// The pipeline file's name, if any.
    package var pipeline: String?
    /// The command line as recorded.
    package var arguments: String
    /// Runs with the same key continue an unfinished predecessor; nil: never continued.
    package var resumeKey: String?
    /// The deriver the run derives with.
    package var deriver: SummaryDeriver
    /// Whether the run may downgrade newer summaries.
    package var allowDowngrade: Bool
    /// How an unfinished run under the key is continued.
    package var continuation: Continuation
    /// Only join or continue: when the latest run under the key completed, begin nothing
    /// (`RunStart.alreadyCompleted`).
    package var onlyJoin: Bool

    /// Creates a request (by default a run that is continued by a new run and may begin).
    package init(
        command: String, pipeline: String? = nil, arguments: String, resumeKey: String? = nil,
        deriver: SummaryDeriver, allowDowngrade: Bool = false, continuation: Continuation = .asNewRun,
        onlyJoin: Bool = false
    ) {
        (self.command, self.pipeline, self.arguments, self.resumeKey) = (command, pipeline, arguments, resumeKey)
        (self.deriver, self.allowDowngrade) = (deriver, allowDowngrade)
        (self.continuation, self.onlyJoin) = (continuation, onlyJoin)
    }
}
