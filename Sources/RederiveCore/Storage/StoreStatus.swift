/// A snapshot of what a store holds and how current it is, for `rederive status`.
///
/// Built by `StoreInspector.status(deriver:runLimit:)` from one read transaction, so every count
/// belongs to the same moment. Rendered by `text()` (people) and `json()` (scripts).
public struct StoreStatus: Sendable, Equatable {
    /// How many records carry one stored summary version.
    public struct VersionCount: Sendable, Equatable {
        /// The stored `summary_version`; nil for records never derived (no summary row).
        public var summaryVersion: Int?
        /// Records with that version.
        public var records: Int

        /// Creates a count.
        public init(summaryVersion: Int?, records: Int) {
            self.summaryVersion = summaryVersion
            self.records = records
        }

        /// The order status lists them in: ascending versions, "never derived" last.
        package static func displayOrder(_ a: VersionCount, _ b: VersionCount) -> Bool {
            switch (a.summaryVersion, b.summaryVersion) {
            case let (x?, y?): x < y
            case (_?, nil): true
            default: false
            }
        }
    }

    /// Records whose summary is stale for the deriver, by reason. The reasons are disjoint.
    public struct StaleCounts: Sendable, Equatable {
        /// The stored `summary_version` differs from the deriver's.
        public var version: Int
        /// Same version, different derivation fingerprint.
        public var fingerprint: Int
        /// No summary row at all.
        public var missing: Int

        /// Creates counts.
        public init(version: Int = 0, fingerprint: Int = 0, missing: Int = 0) {
            self.version = version
            self.fingerprint = fingerprint
            self.missing = missing
        }

        /// All stale records.
        public var total: Int { version + fingerprint + missing }
    }

    /// Open failures in the ledger for one stage and code.
    public struct FailureCount: Sendable, Equatable {
        /// Pipeline stage (`read`, `parse`, `upgrade`, `decode`, `derive`).
        public var stage: String
        /// Stable error code.
        public var code: String
        /// Open failures with that stage and code.
        public var count: Int

        /// `counts` in the order every engine shows them: stages in pipeline order (unknown
        /// stages last, by name), then by code.
        package static func inDisplayOrder(_ counts: [FailureCount]) -> [FailureCount] {
            let order = Dictionary(
                uniqueKeysWithValues: RecordIssue.Stage.allCases.enumerated().map { ($1.rawValue, $0) })
            return counts.sorted { a, b in
                let (sa, sb) = (order[a.stage] ?? Int.max, order[b.stage] ?? Int.max)
                if sa != sb { return sa < sb }
                if a.stage != b.stage { return a.stage < b.stage }
                return a.code < b.code
            }
        }

        /// Creates a count.
        public init(stage: String, code: String, count: Int) {
            self.stage = stage
            self.code = code
            self.count = count
        }
    }

    /// One entry of the run history.
    public struct RunEntry: Sendable, Equatable {
        /// Run id (increasing).
        public var id: Int64
        /// `import`, `derive`, `export`, ...
        public var command: String
        /// `running`, `completed`, `aborted`, `interrupted`, `crashed`, `failed`.
        public var status: String
        /// Process exit status; nil while running or after a crash.
        public var exitStatus: Int?
        /// Start time (ISO 8601 UTC).
        public var startedAt: String
        /// Wall-clock seconds; nil when the run never finished.
        public var durationSeconds: Double?
        /// Records read.
        public var read: Int
        /// Records done (imported, derived, exported).
        public var done: Int
        /// Records left unchanged.
        public var unchanged: Int
        /// Records skipped with an issue.
        public var skipped: Int
        /// The pipeline file that started the run, if any.
        public var pipeline: String?

        /// Creates an entry.
        public init(
            id: Int64, command: String, status: String, exitStatus: Int?, startedAt: String,
            durationSeconds: Double?, read: Int, done: Int, unchanged: Int, skipped: Int, pipeline: String?
        ) {
            self.id = id
            self.command = command
            self.status = status
            self.exitStatus = exitStatus
            self.startedAt = startedAt
            self.durationSeconds = durationSeconds
            self.read = read
            self.done = done
            self.unchanged = unchanged
            self.skipped = skipped
            self.pipeline = pipeline
        }
    }

    /// The keyset ranges of the latest derive run that was split across processes
    /// (PostgreSQL), by state.
    public struct DeriveRanges: Sendable, Equatable {
        /// The run.
        public var runID: Int64
        /// Ranges waiting for a process.
        public var open: Int
        /// Ranges held under a lease.
        public var claimed: Int
        /// Ranges committed.
        public var done: Int
        /// Ranges that failed after their last attempt.
        public var failed: Int
        /// Who holds the claimed ranges (`host:pid`) and how many each.
        public var claimedBy: [String: Int]

        /// Creates counts.
        public init(runID: Int64, open: Int, claimed: Int, done: Int, failed: Int, claimedBy: [String: Int]) {
            (self.runID, self.open, self.claimed, self.done, self.failed) = (runID, open, claimed, done, failed)
            self.claimedBy = claimedBy
        }
    }

    /// The store file.
    public var path: String
    /// All records.
    public var totalRecords: Int
    /// Records by stored summary version, ascending, "never derived" (nil) last.
    public var recordsByVersion: [VersionCount]
    /// Records stale for `currentVersion` / `currentFingerprint`, by reason.
    public var stale: StaleCounts
    /// Open failures by stage then code, sorted by stage then code.
    public var failures: [FailureCount]
    /// The latest runs, newest first.
    public var recentRuns: [RunEntry]
    /// All runs in the history (may exceed `recentRuns.count`).
    public var totalRuns: Int
    /// The summary version of the deriver the staleness was judged against.
    public var currentVersion: Int
    /// The fingerprint of the deriver the staleness was judged against.
    public var currentFingerprint: String
    /// Records whose summary a newer rederive derived (not stale: left as they are).
    public var newer = 0
    /// The newest summary version among them.
    public var newestVersion: Int?
    /// Open failures an operator acknowledged (`rederive failures --ack`; counted in `failures` too).
    public var acknowledgedFailures = 0
    /// Summaries kept in the history (what runs replaced, for `rederive revert`).
    public var historyRows = 0
    /// Bytes of summary JSON kept in the history.
    public var historyBytes: Int64 = 0
    /// The ranges of the latest split derive run; nil on a store without them (SQLite).
    public var deriveRanges: DeriveRanges?
    /// Range rows kept for all runs, and how many runs they belong to (`history --prune`
    /// removes those of pruned runs); nil on a store without ranges (SQLite).
    public var rangeRows: RangeRows?
    /// The operator's control rows in force (pauses and rates; `rederive pause`, `throttle`),
    /// the store's first; filled by `status` from the store's `RunControls`.
    public var controls: [RunControlState] = []
    /// The latest run's id and batches, for the page's batch charts (`status --html`); nil: not read.
    public var latestBatchRun: Int64?
    /// Those batches, in the order they were recorded.
    public var latestBatches: [BatchRecord] = []

    /// The derive range rows a store keeps.
    public struct RangeRows: Sendable, Equatable {
        /// Rows, over all runs.
        public var rows: Int
        /// Runs they belong to.
        public var runs: Int

        /// Creates counts.
        public init(rows: Int, runs: Int) { (self.rows, self.runs) = (rows, runs) }
    }

    /// Creates a status.
    public init(
        path: String, totalRecords: Int, recordsByVersion: [VersionCount], stale: StaleCounts,
        failures: [FailureCount], recentRuns: [RunEntry], totalRuns: Int, currentVersion: Int,
        currentFingerprint: String
    ) {
        self.path = path
        self.totalRecords = totalRecords
        self.recordsByVersion = recordsByVersion
        self.stale = stale
        self.failures = failures
        self.recentRuns = recentRuns
        self.totalRuns = totalRuns
        self.currentVersion = currentVersion
        self.currentFingerprint = currentFingerprint
    }

    /// Records whose summary is current.
    public var freshRecords: Int { totalRecords - stale.total - newer }

    /// All open failures in the ledger.
    public var openFailures: Int { failures.reduce(0) { $0 + $1.count } }

    /// Open failures by code (summed over stages).
    public var failuresByCode: [String: Int] {
        failures.reduce(into: [:]) { $0[$1.code, default: 0] += $1.count }
    }

    /// Open failures by stage.
    public var failuresByStage: [String: Int] {
        failures.reduce(into: [:]) { $0[$1.stage, default: 0] += $1.count }
    }
}
