import Foundation

/// A reviewed backfill, written by `derive --dry-run --plan FILE` and applied by
/// `derive --apply-plan FILE`: the deriver, the selection, the store (identity and
/// high-water mark) and what would change. Applying refuses — writing nothing — when the
/// deriver, the selection or the store no longer match, or when the records to write are no
/// longer exactly the ones previewed (the digest); records added after the plan are left out.
/// What a plan shows is bound to what it applies: `selection` is checked against the parts
/// applied when it is loaded, and the counts and `fieldChanges` against the apply's own
/// count, next to the writes' SHA-256 digest, so a hand-edited plan is refused.
/// An apply is a recorded run (`runKey`): run again after a crash it finishes the plan, and
/// after it completed it reports the run that applied it (see `PlanProgress`).
public struct DerivePlan: Codable, Sendable, Equatable {
    /// The plan file's format: 2 since the digest is SHA-256 (format 1's was a 64-bit FNV,
    /// which anyone could match), 3 since it is the SHA-256 of each write's SHA-256 (hashed by
    /// the workers: see `ChangeTally`), which format 2's concatenated writes never equal.
    public static let currentFormat = 3

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
    /// The selection (`DeriveSelection.description`), as shown: `load` refuses a plan whose
    /// text is not that of the parts below, which are what it applies.
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
    /// The file the plan was loaded from (`load`), named when it is refused; not in the file.
    public var file: String?

    private enum CodingKeys: String, CodingKey {
        case format, createdAt, store, summaryVersion, fingerprint, selection, all, ids, since, retryFailed
        case allowDowngrade, counts, fieldChanges, digest, build
    }

    /// The key its apply is recorded under in the run history: the plan's digest, store and
    /// time, so an apply run again finishes (or reports) exactly this plan's run.
    public var runKey: String { "plan:\(digest):\(store.id):\(createdAt)" }

    /// The selection the plan was made for.
    public var deriveSelection: DeriveSelection {
        DeriveSelection(all: all, ids: ids, since: since, retryFailed: retryFailed)
    }

    /// Reads a plan file, refusing one of another format and one whose `selection` is not
    /// what it applies (a file edited after it was made).
    public static func load(path: String) throws(RederiveError) -> DerivePlan {
        var plan: DerivePlan
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            // The format first: a plan of another format may have other fields.
            let format = try JSONDecoder().decode(Format.self, from: data).format
            if format < currentFormat {
                throw RederiveError.refused(
                    "\(path): this plan was written by an older build (plan format \(format), "
                        + (format == 1
                            ? "whose digest anyone could match" : "whose digest this build makes differently")
                        + "); preview again and make a new plan with this build "
                        + "(`rederive derive --dry-run --plan FILE`). Nothing was written")
            }
            guard format == currentFormat else {
                throw RederiveError.usage(
                    "\(path): plan format \(format) is not supported (this build reads \(currentFormat))")
            }
            plan = try JSONDecoder().decode(DerivePlan.self, from: data)
        } catch let error as RederiveError {
            throw error
        } catch {
            throw .usage("\(path): not a rederive plan: \(error.localizedDescription)")
        }
        plan.file = path
        let applied = plan.deriveSelection.description
        guard plan.selection == applied else {
            throw .refused(
                "\(path): the plan does not say what it applies (edited after it was made?): \"selection\" says "
                    + "\(JSONText.string(PreviewText.truncated(plan.selection))), its parts (all, ids, since, "
                    + "retryFailed) select \(JSONText.string(PreviewText.truncated(applied))). Preview again and "
                    + "make a new plan. Nothing was written")
        }
        return plan
    }

    /// The one field read before the rest.
    private struct Format: Decodable {
        var format: Int
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
