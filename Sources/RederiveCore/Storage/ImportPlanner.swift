/// What an import does to each record of a batch, decided from the state stored for its id
/// (pure: the engines read that state and execute the decision in the batch's transaction).
/// Both engines use it, so the same record is counted and written the same way on each.
public enum ImportPlanner {
    /// What the store holds for a record id an import meets again.
    public struct StoredState: Sendable, Equatable {
        /// The record's key.
        public var seq: Int64
        /// Content hash of the stored raw room.
        public var rawHash: String
        /// The stored room name.
        public var roomName: String
        /// The stored capture time.
        public var capturedAt: String
        /// The stored summary's version and fingerprint (nil: none stored).
        public var summaryVersion: Int?
        /// The stored summary's fingerprint.
        public var fingerprint: String?

        /// Creates a state.
        public init(
            seq: Int64, rawHash: String, roomName: String, capturedAt: String, summaryVersion: Int?,
            fingerprint: String?
        ) {
            (self.seq, self.rawHash, self.roomName, self.capturedAt) = (seq, rawHash, roomName, capturedAt)
            (self.summaryVersion, self.fingerprint) = (summaryVersion, fingerprint)
        }
    }

    /// How a record is counted.
    public enum Outcome: String, Sendable, Equatable, CaseIterable {
        /// New: record, raw room and summary inserted.
        case inserted
        /// The raw room changed: all of it written again.
        case updated
        /// The same raw room with a summary that was not fresh: the summary written again.
        case rederived
        /// Already stored exactly so (at most its metadata written).
        case unchanged
        /// A newer rederive's summary: nothing written, the ledger untouched.
        case newer
    }

    /// The writes for one record.
    public struct Decision: Sendable, Equatable {
        /// How it is counted.
        public var outcome: Outcome
        /// Whether the record row is inserted or its metadata (name, time, source) rewritten.
        public var writesRecord: Bool
        /// Whether the raw room is written.
        public var writesRaw: Bool
        /// Whether the summary is written (its old one kept in the history when there was one).
        public var writesSummary: Bool
        /// Whether the record's open failures are cleared (it was read and stored fine).
        public var clearsFailures: Bool { outcome != .newer }

        /// Creates a decision.
        public init(outcome: Outcome, writesRecord: Bool, writesRaw: Bool, writesSummary: Bool) {
            (self.outcome, self.writesRecord, self.writesRaw, self.writesSummary) =
                (outcome, writesRecord, writesRaw, writesSummary)
        }
    }

    /// The decision for a record with raw hash `rawHash`, name `roomName` and capture time
    /// `capturedAt`, given what is stored under its id (nil: nothing).
    public static func decide(
        rawHash: String, roomName: String, capturedAt: String, stored: StoredState?, deriver: SummaryDeriver,
        allowDowngrade: Bool
    ) -> Decision {
        guard let stored else {
            return Decision(outcome: .inserted, writesRecord: true, writesRaw: true, writesSummary: true)
        }
        let freshness = SummaryFreshness.classify(
            version: stored.summaryVersion, fingerprint: stored.fingerprint, for: deriver)
        // A summary from a newer rederive is never rolled back by an older one, unless asked.
        if freshness.isKept(allowDowngrade: allowDowngrade) {
            return Decision(outcome: .newer, writesRecord: false, writesRaw: false, writesSummary: false)
        }
        let sameRaw = stored.rawHash == rawHash
        let sameMeta = stored.roomName == roomName && stored.capturedAt == capturedAt
        let fresh = freshness == .fresh
        // A changed room name or capture time is an update too, as a changed room is (it was
        // counted unchanged: "0 updated, 2 unchanged" after a rename).
        let outcome: Outcome = sameRaw && sameMeta ? (fresh ? .unchanged : .rederived) : .updated
        return Decision(
            outcome: outcome, writesRecord: !sameRaw || !sameMeta, writesRaw: !sameRaw,
            writesSummary: !sameRaw || !fresh)
    }

    /// The decision for `row`.
    public static func decide(
        _ row: ImportRow, stored: StoredState?, deriver: SummaryDeriver, allowDowngrade: Bool
    ) -> Decision {
        decide(
            rawHash: row.rawHash, roomName: row.record.roomName, capturedAt: row.record.capturedAt, stored: stored,
            deriver: deriver, allowDowngrade: allowDowngrade)
    }

    /// The run's progress to record with a batch, in the batch's transaction: `before` (the
    /// run's totals before it) with the batch's records added, so a crashed or running
    /// import shows what the store holds, on every engine.
    public static func progress(_ before: RunStatistics, adding batch: ImportBatchCounts) -> RunStatistics {
        var merged = before
        merged.recordsDone += batch.written
        merged.recordsUnchanged += batch[.unchanged]
        merged.recordsNewer += batch[.newer]
        return merged
    }
}
