/// File names that carry the store's identity, so that stores run through the same pipeline
/// file (`make nightly` on one store, the cron job on another, a PostgreSQL store) never
/// replace each other's reports, metrics, previews or plans.
///
/// The identity is the random id every store gets when it is created (`store_id`, what plans
/// are bound to); names carry its first `tagLength` hex digits.
public enum StoreNaming {
    /// Hex digits of the store id a name carries.
    public static let tagLength = 8

    /// The part of `storeID` names carry (empty for an empty id).
    public static func tag(_ storeID: String) -> String { String(storeID.prefix(tagLength)) }

    /// Extensions kept at the end of a name, longest first.
    static let extensions = [".jsonl.zst", ".jsonl", ".json", ".prom", ".html", ".md"]

    /// `path` with `-<tag>` before its extension (`backfill-plan.json` →
    /// `backfill-plan-1a2b3c4d.json`) or, without one, at its end (a folder:
    /// `backfill-preview` → `backfill-preview-1a2b3c4d`); unchanged for an empty id or `-`.
    public static func path(_ path: String, storeID: String) -> String {
        let tag = tag(storeID)
        guard !tag.isEmpty, path != "-" else { return path }
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        let name = trimmed.split(separator: "/", omittingEmptySubsequences: false).last ?? trimmed
        for suffix in extensions where name.hasSuffix(suffix) && name.count > suffix.count {
            return String(trimmed.dropLast(suffix.count)) + "-" + tag + suffix
        }
        return trimmed + "-" + tag
    }
}
