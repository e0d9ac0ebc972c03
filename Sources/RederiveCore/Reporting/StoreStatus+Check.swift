extension StoreStatus {
    /// One thing in a store that needs attention, for `rederive status --check`.
    public struct Problem: Sendable, Equatable {
        /// What kind of problem it is (stable, for scripts).
        public enum Kind: String, Sendable, Equatable {
            /// Records whose summary is stale for this build.
            case staleRecords = "stale_records"
            /// Open failures in the ledger.
            case openFailures = "open_failures"
            /// The latest run of a command did not complete.
            case unfinishedRun = "unfinished_run"
        }

        /// The kind.
        public var kind: Kind
        /// One line for people: what is wrong and what to do.
        public var message: String

        /// Creates a problem.
        public init(kind: Kind, message: String) {
            self.kind = kind
            self.message = message
        }
    }

    /// The exit status of `rederive status --check` when something needs attention (0: ok).
    public static let checkAttentionExitStatus = ExitStatus.needsAttention

    /// Run statuses that need attention when they end the latest run of a command.
    static let attentionRunStatuses: Set<String> = [
        RunStatus.interrupted.rawValue, RunStatus.aborted.rawValue, RunStatus.failed.rawValue,
        RunStatus.crashed.rawValue,
    ]

    /// What needs attention, one problem per line, in a stable order (stale records, open
    /// failures, then unfinished runs by command); empty when all is well.
    ///
    /// A run counts when it is the latest of its command among `recentRuns` and ended
    /// `interrupted`, `aborted`, `failed` or `crashed` (a `running` run may be live and is
    /// not judged). Pure: judges this snapshot only.
    public func problems() -> [Problem] {
        var problems: [Problem] = []
        if stale.total > 0 {
            problems.append(
                Problem(
                    kind: .staleRecords,
                    message: "\(stale.total) stale record\(stale.total == 1 ? "" : "s") (\(stale.version) version, "
                        + "\(stale.fingerprint) fingerprint, \(stale.missing) missing): "
                        + "run `rederive derive --db \(path)`"
                ))
        }
        if openFailures > 0 {
            let codes = failures.map { "\($0.stage)/\($0.code) \($0.count)" }.joined(separator: ", ")
            problems.append(
                Problem(
                    kind: .openFailures,
                    message: "\(openFailures) open failure\(openFailures == 1 ? "" : "s") (\(codes)): "
                        + "see `rederive failures --db \(path)`"))
        }
        var seen = Set<String>()
        for run in recentRuns.sorted(by: { $0.id > $1.id }) where seen.insert(run.command).inserted {
            guard Self.attentionRunStatuses.contains(run.status) else { continue }
            let exit = run.exitStatus.map { ", exit \($0)" } ?? ""
            problems.append(
                Problem(
                    kind: .unfinishedRun,
                    message: "latest \(run.command) run \(run.id) \(run.status)\(exit) at \(run.startedAt): "
                        + "run the same command again to continue"))
        }
        return problems
    }

    /// The verdict for people: `ok`, or one line per problem (control characters escaped,
    /// `TerminalText`). Ends with a newline.
    public func checkText() -> String {
        let problems = problems()
        guard !problems.isEmpty else { return "ok\n" }
        return problems.map { TerminalText.escaped($0.message) + "\n" }.joined()
    }

    /// The verdict as one JSON object: `{"store","ok","exitStatus","problems":[{"kind","message"}]}`.
    public func checkJSON() -> String {
        let problems = problems()
        let items = problems.map {
            "{\"kind\":\(JSONText.string($0.kind.rawValue)),\"message\":\(JSONText.string($0.message))}"
        }
        return "{\"store\":\(JSONText.string(path)),\"ok\":\(problems.isEmpty),\"exitStatus\":\(checkExitStatus),"
            + "\"problems\":[\(items.joined(separator: ","))]}"
    }

    /// 0 when nothing needs attention, `checkAttentionExitStatus` otherwise.
    public var checkExitStatus: ExitStatus { problems().isEmpty ? .ok : Self.checkAttentionExitStatus }
}
