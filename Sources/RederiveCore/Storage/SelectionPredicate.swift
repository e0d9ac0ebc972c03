/// The rule of which records a derive visits, rendered once for every engine: the conditions
/// after a keyset query's bounds, over `record LEFT JOIN summary ON summary.record_seq =
/// record.seq`, each ` AND …`, their values bound through the engine's `SQLBinder`.
///
/// - retry-failed: records with an open decode or derive failure in the ledger;
/// - otherwise, unless `all`: the stale records, `SummaryFreshness.derived(allowDowngrade:)`;
/// - either way, with `writtenAfterRun`, also what runs after it wrote (a plan's apply visits
///   the writes of its own earlier runs, no longer stale);
/// - `ids` (canonical UUID spelling) and `since` (the instant, not the text) narrow it.
package struct SelectionPredicate: Sendable {
    /// The ledger stages whose failures `--retry-failed` retries (a derive can clear them).
    package static let retriedStages: [RecordIssue.Stage] = [.decode, .derive]

    /// Which records.
    package var selection: DeriveSelection
    /// Whose freshness decides what is stale.
    package var deriver: SummaryDeriver
    /// Whether newer summaries are visited too.
    package var allowDowngrade: Bool

    /// The predicate of `selection` for `deriver`.
    package init(_ selection: DeriveSelection, deriver: SummaryDeriver, allowDowngrade: Bool) {
        (self.selection, self.deriver, self.allowDowngrade) = (selection, deriver, allowDowngrade)
    }

    /// The conditions (each starting with ` AND `; empty: every record), values bound in order.
    package func render(_ binder: inout some SQLBinder) -> String {
        var sql = ""
        let dialect = binder.dialect
        func orWritten(_ binder: inout some SQLBinder) -> String {
            selection.writtenAfterRun.map { " OR summary.run_id > \(binder.bind(.integer($0)))" } ?? ""
        }
        if selection.retryFailed {
            let stages = Self.retriedStages.map { "'\($0.rawValue)'" }.joined(separator: ", ")
            sql +=
                " AND (record.id IN (SELECT record_id FROM failure WHERE record_id IS NOT NULL"
                + " AND stage IN (\(stages)))" + orWritten(&binder) + ")"
        } else if !selection.all {
            let stale = binder.freshness(SummaryFreshness.derived(allowDowngrade: allowDowngrade), deriver: deriver)
            let written = orWritten(&binder)
            sql += " AND " + (written.isEmpty ? stale : "(" + stale + written + ")")
        }
        if let ids = selection.ids {
            let canonical = ids.map { RecordIdentity.canonicalUUID($0) ?? $0 }
            sql += " AND " + dialect.membership("record.id", in: canonical, &binder)
        }
        if let since = selection.sinceUTC {
            sql += " AND " + dialect.instant("record.stored_at", atOrAfter: since, &binder)
        }
        return sql
    }
}
