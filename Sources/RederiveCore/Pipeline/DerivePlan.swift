import Foundation

/// A reviewed backfill, written by `derive --dry-run --plan FILE` and applied by
/// `derive --apply-plan FILE`: the deriver, the selection, the store (identity and
/// high-water mark) and what would change. Applying refuses — writing nothing — when the
/// deriver, the selection or the store no longer match, or when the records to write are no
/// longer exactly the ones previewed (the digest); records added after the plan are left out.
/// An apply is a recorded run (`runKey`): run again after a crash it finishes the plan, and
/// after it completed it reports the run that applied it (see `PlanProgress`).
public struct DerivePlan: Codable, Sendable, Equatable {
    /// The plan file's format.
    public static let currentFormat = 1

    /// The store a plan is bound to.
    public struct StoreState: Codable, Sendable, Equatable {
        /// Its path when the plan was made (informative).
        public var path: String
        /// Its identity (`StoreHandle.storeID()`).
        public var id: String
        /// The highest record key then: records added later are not part of the plan.
        public var highWaterMark: Int64
        /// The last run in the store's history then: later runs other than the plan's own
        /// changed the store outside the plan (absent from plans made before it was kept).
        public var lastRunID: Int64?
    }

    /// What a plan would do: the preview's counts (`ChangeTally.counts`).
    public typealias Counts = ChangeCounts

    /// `currentFormat` when written.
    public var format: Int
    /// When the plan was made (UTC).
    public var createdAt: String
    /// The store.
    public var store: StoreState
    /// The deriver's summary version.
    public var summaryVersion: Int
    /// The deriver's fingerprint.
    public var fingerprint: String
    /// The selection (`DeriveSelection.description`).
    public var selection: String
    /// The selection's parts, to apply exactly it.
    public var all: Bool
    /// `--ids`, if any.
    public var ids: [String]?
    /// `--since`, if any.
    public var since: String?
    /// `--retry-failed`.
    public var retryFailed: Bool
    /// Whether newer summaries may be overwritten.
    public var allowDowngrade: Bool
    /// What would happen.
    public var counts: Counts
    /// Changed records per summary field.
    public var fieldChanges: [String: Int]
    /// Digest of every write (see `ChangeTally`).
    public var digest: String
    /// The build that made the plan (`RederiveVersion.build`); nil in plans made before it was
    /// recorded. Named when an older binary refuses the plan.
    public var build: String? = RederiveVersion.build

    /// The key its apply is recorded under in the run history: the plan's digest, store and
    /// time, so an apply run again finishes (or reports) exactly this plan's run.
    public var runKey: String { "plan:\(digest):\(store.id):\(createdAt)" }

    /// The selection the plan was made for.
    public var deriveSelection: DeriveSelection {
        DeriveSelection(all: all, ids: ids, since: since, retryFailed: retryFailed)
    }

    /// Reads a plan file.
    public static func load(path: String) throws(RederiveError) -> DerivePlan {
        let plan: DerivePlan
        do {
            plan = try JSONDecoder().decode(DerivePlan.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw .usage("\(path): not a rederive plan: \(error.localizedDescription)")
        }
        guard plan.format == currentFormat else {
            throw .usage("\(path): plan format \(plan.format) is not supported (this build reads \(currentFormat))")
        }
        return plan
    }

    /// Writes the plan (atomically: temporary file, then rename).
    public func write(to path: String) throws(RederiveError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do { data = try encoder.encode(self) } catch {
            throw .io("\(path): cannot write the plan: \(error.localizedDescription)")
        }
        do { try OutputFile.write(data, to: path, what: "plan") } catch {
            throw .io("cannot write the plan: \(error)")
        }
    }
}
