/// How current a record's stored summary is for a deriver: the one definition of "stale"
/// that derive's selection, `status`, export's exclusion, the metrics gauges, previews and
/// both imports use, on every engine.
///
/// The five cases are disjoint and cover every record. Derive visits `needsDerive` (newer
/// only when it may downgrade); an export of fresh summaries keeps `fresh` only; `status`
/// reports `missing`, `staleByVersion` and `staleByFingerprint` as stale and `newer` apart.
/// The stores count and select in SQL with `sqlCondition(_:bind:)` and `sqlCase(bind:)`,
/// generated from the same cases (a test evaluates them against `classify` on both engines).
public enum SummaryFreshness: String, Sendable, CaseIterable, Hashable {
    /// No summary stored.
    case missing
    /// Derived by an older summary version.
    case staleByVersion = "stale_by_version"
    /// The current version, derived with other parameters (another fingerprint).
    case staleByFingerprint = "stale_by_fingerprint"
    /// The current version and fingerprint.
    case fresh
    /// Derived by a newer summary version (an older build leaves it alone).
    case newer

    /// How current a summary stored with `version` and `fingerprint` (nil: none stored) is
    /// for `deriver`.
    public static func classify(version: Int?, fingerprint: String?, for deriver: SummaryDeriver) -> SummaryFreshness {
        classify(
            version: version, fingerprint: fingerprint, currentVersion: deriver.version,
            currentFingerprint: deriver.fingerprint)
    }

    /// As `classify(version:fingerprint:for:)`, against a version and fingerprint given as
    /// values; a nil `currentFingerprint` (a preview not told it) compares versions only.
    public static func classify(
        version: Int?, fingerprint: String?, currentVersion: Int, currentFingerprint: String?
    ) -> SummaryFreshness {
        guard let version else { return .missing }
        if version < currentVersion { return .staleByVersion }
        if version > currentVersion { return .newer }
        return currentFingerprint == nil || fingerprint == currentFingerprint ? .fresh : .staleByFingerprint
    }

    /// Whether `status` counts it as stale (missing included; newer summaries are not stale).
    public var isStale: Bool { self == .missing || self == .staleByVersion || self == .staleByFingerprint }

    /// Whether a derive of stale records visits it: every stale record, and a newer summary
    /// only when the run may downgrade it.
    public func needsDerive(allowDowngrade: Bool) -> Bool { isStale || (allowDowngrade && self == .newer) }

    /// Whether an import or derive leaves the stored summary alone: a newer rederive's, unless
    /// the run may downgrade it.
    public func isKept(allowDowngrade: Bool) -> Bool { self == .newer && !allowDowngrade }

    /// The cases derive's stale selection visits.
    public static func derived(allowDowngrade: Bool) -> Set<SummaryFreshness> {
        Set(allCases.filter { $0.needsDerive(allowDowngrade: allowDowngrade) })
    }

    // MARK: SQL

    /// A value a generated condition compares with: the engine binds it and returns its
    /// placeholder (`?`, `$3`), in the order the text asks for them.
    public enum Parameter: Sendable, Equatable {
        /// The deriver's summary version (an integer).
        case version
        /// The deriver's fingerprint (text).
        case fingerprint
    }

    /// The condition, over `record LEFT JOIN summary ON summary.record_seq = record.seq`, that
    /// holds for this case and no other (standard SQL both engines read).
    public func sqlCondition(bind: (Parameter) -> String) -> String {
        switch self {
        case .missing: "summary.record_seq IS NULL"
        case .staleByVersion: "summary.summary_version < \(bind(.version))"
        case .staleByFingerprint:
            "(summary.summary_version = \(bind(.version)) AND summary.fingerprint <> \(bind(.fingerprint)))"
        case .fresh: "(summary.summary_version = \(bind(.version)) AND summary.fingerprint = \(bind(.fingerprint)))"
        case .newer: "summary.summary_version > \(bind(.version))"
        }
    }

    /// The condition, over `summary`, that the stored summary is not `json` (a placeholder or
    /// column) by the deriver: not `fresh`, or other JSON text. What a write of `json`
    /// replaces, and so keeps in the history; `json` comes first in the text.
    public static func sqlReplaced(byJSON json: String, bind: (Parameter) -> String) -> String {
        "(summary.summary_json <> \(json) OR NOT \(fresh.sqlCondition(bind: bind)))"
    }

    /// The newest summary version of the `newer` summaries (NULL when there are none): what
    /// `status` names beside their count.
    public static func sqlNewestVersion(bind: (Parameter) -> String) -> String {
        "SELECT max(summary.summary_version) FROM summary WHERE \(newer.sqlCondition(bind: bind))"
    }

    /// The condition that holds for exactly the cases in `cases` (in `allCases` order; false
    /// when empty).
    public static func sqlCondition(_ cases: Set<SummaryFreshness>, bind: (Parameter) -> String) -> String {
        let parts = allCases.filter(cases.contains).map { $0.sqlCondition(bind: bind) }
        if parts.isEmpty { return "(1 = 0)" }
        return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " OR ") + ")"
    }

    /// A CASE expression giving each row's `rawValue` (for counting every case in one pass).
    public static func sqlCase(bind: (Parameter) -> String) -> String {
        "CASE " + allCases.map { "WHEN \($0.sqlCondition(bind: bind)) THEN '\($0.rawValue)'" }.joined(separator: " ")
            + " END"
    }

    /// Records by case; a case not given counts 0.
    public struct Counts: Sendable, Equatable {
        /// The counts by case.
        public var byCase: [SummaryFreshness: Int]

        /// Counts from rows of (`rawValue`, count), as a `sqlCase` GROUP BY returns them.
        public init(_ rows: [(String, Int)]) {
            byCase = [:]
            for (raw, n) in rows {
                if let c = SummaryFreshness(rawValue: raw) { byCase[c, default: 0] += n }
            }
        }

        /// The count of one case.
        public subscript(_ c: SummaryFreshness) -> Int { byCase[c] ?? 0 }

        /// Stale as `status` reports it, by reason.
        public var stale: StoreStatus.StaleCounts {
            .init(version: self[.staleByVersion], fingerprint: self[.staleByFingerprint], missing: self[.missing])
        }

        /// What an export of fresh summaries leaves out: `stale` (any summary that is not
        /// fresh, newer ones included, since export has no separate figure for them) and `missing`.
        public var notFresh: (stale: Int, missing: Int) {
            (self[.staleByVersion] + self[.staleByFingerprint] + self[.newer], self[.missing])
        }
    }
}
