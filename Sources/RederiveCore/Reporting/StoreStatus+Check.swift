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
            /// Ranges of the latest split derive run failed after their last attempt.
            case failedRanges = "failed_ranges"
            /// A pause (`rederive pause`) in force for longer than `--max-paused`.
            case longPause = "long_pause"
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

    /// How much `rederive status --check` tolerates before it reports a problem. The defaults
    /// tolerate nothing (stale records, open failures) and leave failed ranges to the run's status.
    public struct CheckPolicy: Sendable, Equatable {
        /// Open failures tolerated (`--max-open-failures`): acknowledged ones and, with
        /// `window`, those first seen before it never count.
        public var maxOpenFailures: Int
        /// Stale records tolerated (`--max-stale`).
        public var maxStale: Int
        /// Failed ranges of the latest split derive run tolerated (`--max-failed-ranges`); nil: not judged.
        public var maxFailedRanges: Int?
        /// How far back a failure's first sighting counts, as given (`--within 24h`); nil: any time.
        public var window: String?
        /// Seconds a pause may last before it needs attention (`--max-paused`); nil: not judged.
        public var maxPausedSeconds: Double?
        /// The moment pauses are judged at (UTC with milliseconds).
        public var now = RunControlState.now()

        /// Creates a policy.
        public init(maxOpenFailures: Int = 0, maxStale: Int = 0, maxFailedRanges: Int? = nil, window: String? = nil) {
            (self.maxOpenFailures, self.maxStale, self.maxFailedRanges) = (maxOpenFailures, maxStale, maxFailedRanges)
            self.window = window
        }

        /// Seconds in a window written as a count and a unit: `90s`, `30m`, `24h`, `7d`; nil
        /// when it is not one (or not positive).
        public static func seconds(ofWindow text: String) -> Double? {
            let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
            guard let unit = text.last.flatMap({ units[$0] }), let count = Double(text.dropLast()),
                count.isFinite, count > 0, text.dropLast().allSatisfy({ $0.isNumber || $0 == "." })
            else { return nil }
            return count * unit
        }
    }

    /// Open failures counted by stage and code, in the order `status` lists them (pipeline
    /// order of stages, unknown stages last, then code).
    public static func failureCounts(_ failures: [OpenFailure]) -> [FailureCount] {
        var counts: [String: [String: Int]] = [:]
        for failure in failures { counts[failure.stage, default: [:]][failure.code, default: 0] += 1 }
        let order = Dictionary(uniqueKeysWithValues: RecordIssue.Stage.allCases.enumerated().map { ($1.rawValue, $0) })
        return counts.flatMap { stage, codes in codes.map { FailureCount(stage: stage, code: $0, count: $1) } }
            .sorted { a, b in
                let (sa, sb) = (order[a.stage] ?? Int.max, order[b.stage] ?? Int.max)
                if sa != sb { return sa < sb }
                if a.stage != b.stage { return a.stage < b.stage }
                return a.code < b.code
            }
    }

    /// The exit status of `rederive status --check` when something needs attention (0: ok).
    public static let checkAttentionExitStatus = ExitStatus.needsAttention

    /// Run statuses that need attention when they end the latest run of a command.
    static let attentionRunStatuses: Set<String> = [
        RunStatus.interrupted.rawValue, RunStatus.aborted.rawValue, RunStatus.failed.rawValue,
        RunStatus.crashed.rawValue,
    ]

    /// What needs attention under `policy`, one problem per line, in a stable order (stale
    /// records, open failures, failed ranges, then unfinished runs by command); empty when all
    /// is well.
    ///
    /// Open failures are those in `failures`: for the check, the caller leaves out the
    /// acknowledged ones and those first seen before `policy.window` (`acknowledgedFailures`
    /// says how many were acknowledged). A run counts when it is the latest of its command among
    /// `recentRuns` and ended `interrupted`, `aborted`, `failed` or `crashed` (a `running` run
    /// may be live and is not judged). Pure: judges this snapshot only.
    public func problems(policy: CheckPolicy = CheckPolicy()) -> [Problem] {
        var problems: [Problem] = []
        if stale.total > policy.maxStale {
            problems.append(
                Problem(
                    kind: .staleRecords,
                    message: "\(stale.total) stale record\(stale.total == 1 ? "" : "s") (\(stale.version) version, "
                        + "\(stale.fingerprint) fingerprint, \(stale.missing) missing"
                        + (policy.maxStale > 0 ? ", more than \(policy.maxStale)" : "") + "): "
                        + Self.staleHint(rewrites: stale.version + stale.fingerprint, missing: stale.missing, db: path)
                ))
        }
        if openFailures > policy.maxOpenFailures {
            let codes = failures.map { "\($0.stage)/\($0.code) \($0.count)" }.joined(separator: ", ")
            var notes: [String] = []
            if let window = policy.window { notes.append("first seen within \(window)") }
            if policy.maxOpenFailures > 0 { notes.append("more than \(policy.maxOpenFailures)") }
            if acknowledgedFailures > 0 { notes.append("\(acknowledgedFailures) acknowledged not counted") }
            problems.append(
                Problem(
                    kind: .openFailures,
                    message: "\(openFailures) open failure\(openFailures == 1 ? "" : "s") (\(codes))"
                        + (notes.isEmpty ? "" : " [\(notes.joined(separator: ", "))]") + ": "
                        + "see `rederive failures --db \(path)`; acknowledge known ones with `--ack`"))
        }
        if let max = policy.maxFailedRanges, let ranges = deriveRanges, ranges.failed > max {
            problems.append(
                Problem(
                    kind: .failedRanges,
                    message:
                        "derive run \(ranges.runID) has \(ranges.failed) failed range\(ranges.failed == 1 ? "" : "s")"
                        + (max > 0 ? " (more than \(max))" : "") + ": run the same derive again to retry them"))
        }
        problems += pauseProblems(policy: policy)
        var seen = Set<String>()
        for run in recentRuns.sorted(by: { $0.id > $1.id }) where seen.insert(run.command).inserted {
            guard Self.attentionRunStatuses.contains(run.status) else { continue }
            // Exited as told by a pause (`--exit-when-paused`): judged by `--max-paused`, not as a fault.
            if run.exitStatus == Int(ExitStatus.paused.rawValue) { continue }
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
    public func checkText(policy: CheckPolicy = CheckPolicy()) -> String {
        let problems = problems(policy: policy)
        guard !problems.isEmpty else { return "ok\n" }
        return problems.map { TerminalText.escaped($0.message) + "\n" }.joined()
    }

    /// The verdict as one JSON object: `{"store","ok","exitStatus","problems":[{"kind","message"}]}`.
    public func checkJSON(policy: CheckPolicy = CheckPolicy()) -> String {
        let problems = problems(policy: policy)
        let items = problems.map {
            "{\"kind\":\(JSONText.string($0.kind.rawValue)),\"message\":\(JSONText.string($0.message))}"
        }
        let exitStatus: ExitStatus = problems.isEmpty ? .ok : Self.checkAttentionExitStatus
        return "{\"store\":\(JSONText.string(path)),\"ok\":\(problems.isEmpty),\"exitStatus\":\(exitStatus.rawValue),"
            + "\"problems\":[\(items.joined(separator: ","))]}"
    }

    /// 0 when nothing needs attention, `checkAttentionExitStatus` otherwise.
    public func checkExitStatus(policy: CheckPolicy = CheckPolicy()) -> ExitStatus {
        problems(policy: policy).isEmpty ? .ok : Self.checkAttentionExitStatus
    }
}
