/// Everything the store knows about one record, for `rederive show`: where it came from,
/// its stored summary and how current that is, its open failures and its summary history.
public struct StoredRecord: Sendable, Equatable {
    /// The stored summary of a record.
    public struct Summary: Sendable, Equatable {
        /// The summary version that derived it.
        public var summaryVersion: Int
        /// The derivation fingerprint that derived it.
        public var fingerprint: String
        /// When it was derived (ISO 8601 UTC).
        public var derivedAt: String
        /// The run that derived it, if recorded.
        public var runID: Int64?
        /// The summary JSON, verbatim as stored.
        public var json: String

        /// Creates a summary.
        public init(summaryVersion: Int, fingerprint: String, derivedAt: String, runID: Int64?, json: String) {
            self.summaryVersion = summaryVersion
            self.fingerprint = fingerprint
            self.derivedAt = derivedAt
            self.runID = runID
            self.json = json
        }
    }

    /// One earlier summary of the record (from the `summary_history` table, once a store has one).
    public struct HistoryEntry: Sendable, Equatable {
        /// The summary version that derived it.
        public var summaryVersion: Int
        /// The derivation fingerprint that derived it.
        public var fingerprint: String
        /// When it was derived (ISO 8601 UTC).
        public var derivedAt: String
        /// The run that derived it, if recorded.
        public var runID: Int64?
        /// The summary JSON, verbatim.
        public var json: String
        /// The run that replaced it, and when.
        public var replacedByRun: Int64?
        /// When it was replaced (ISO 8601 UTC).
        public var replacedAt: String?

        /// Creates an entry.
        public init(
            summaryVersion: Int, fingerprint: String, derivedAt: String, runID: Int64?, json: String,
            replacedByRun: Int64? = nil, replacedAt: String? = nil
        ) {
            self.summaryVersion = summaryVersion
            self.fingerprint = fingerprint
            self.derivedAt = derivedAt
            self.runID = runID
            self.json = json
            self.replacedByRun = replacedByRun
            self.replacedAt = replacedAt
        }
    }

    /// Why a stored summary is not current for a deriver.
    public enum Staleness: String, Sendable, Equatable {
        /// Current: same summary version and fingerprint.
        case fresh
        /// The stored summary version differs.
        case version
        /// Same version, different derivation fingerprint.
        case fingerprint
        /// No summary stored.
        case missing

        /// How current `summary` is for `deriver`.
        package init(of summary: Summary?, for deriver: SummaryDeriver) {
            // `SummaryFreshness`, with a newer summary shown as another version.
            self =
                switch SummaryFreshness.classify(
                    version: summary?.summaryVersion, fingerprint: summary?.fingerprint, for: deriver)
                {
                case .missing: .missing
                case .staleByVersion, .newer: .version
                case .staleByFingerprint: .fingerprint
                case .fresh: .fresh
                }
        }
    }

    /// The record id.
    public var id: String
    /// Room name.
    public var roomName: String
    /// Capture time (ISO 8601).
    public var capturedAt: String
    /// The record format version it was exported in (1, 2, 3).
    public var sourceFormatVersion: Int
    /// The export file it was last imported from, as given on the command line.
    public var sourceFile: String
    /// Its 1-based line in `sourceFile`.
    public var sourceLine: Int
    /// Content hash of the raw room (hex).
    public var rawHash: String
    /// Size of the raw room in bytes.
    public var rawSize: Int
    /// When the record was stored or last changed (ISO 8601 UTC).
    public var storedAt: String
    /// The stored summary; nil when the record was never derived.
    public var summary: Summary?
    /// How current `summary` is for the deriver the store was asked with.
    public var staleness: Staleness
    /// Open failures of this record id in the ledger.
    public var failures: [OpenFailure]
    /// Earlier summaries, oldest first; nil when the store keeps no summary history.
    public var history: [HistoryEntry]?

    /// Creates a record description.
    public init(
        id: String, roomName: String, capturedAt: String, sourceFormatVersion: Int, sourceFile: String,
        sourceLine: Int, rawHash: String, rawSize: Int, storedAt: String, summary: Summary?,
        staleness: Staleness, failures: [OpenFailure], history: [HistoryEntry]?
    ) {
        self.id = id
        self.roomName = roomName
        self.capturedAt = capturedAt
        self.sourceFormatVersion = sourceFormatVersion
        self.sourceFile = sourceFile
        self.sourceLine = sourceLine
        self.rawHash = rawHash
        self.rawSize = rawSize
        self.storedAt = storedAt
        self.summary = summary
        self.staleness = staleness
        self.failures = failures
        self.history = history
    }
}
