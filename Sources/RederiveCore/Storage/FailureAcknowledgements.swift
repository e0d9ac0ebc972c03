/// The failure ledger's statements every engine runs (`failures`, `failures --ack`/`--unack`,
/// `status --check`), rendered through the engine's `SQLBinder` in its dialect: the filter's
/// conditions, the acknowledgement upsert and its taking back.
package enum FailureAcknowledgements {
    /// The ledger with each entry's acknowledgement (`acknowledged_at`, NULL when none): an
    /// acknowledgement covers the entry it was made for (same key, same first-seen time).
    package static let failureWithAck = """
        failure LEFT JOIN failure_ack
            ON failure_ack.failure_key = failure.record_key
            AND failure_ack.failure_first_seen_at = failure.first_seen_at
        """

    /// The WHERE clause over `failureWithAck` for `filter` (empty when it matches everything),
    /// its values bound through `binder`.
    package static func conditions(_ filter: FailureFilter, _ binder: inout some SQLBinder) -> String {
        var conditions: [String] = []
        if let stage = filter.stage { conditions.append("stage = \(binder.bind(.text(stage)))") }
        if let code = filter.code { conditions.append("code = \(binder.bind(.text(code)))") }
        if let file = filter.file {
            // The path as recorded, or its trailing components (`rooms-v2.jsonl`).
            let whole = binder.bind(.text(file))
            let end = binder.dialect.textEnd("file", "length(\(binder.bind(.text("/" + file))))")
            conditions.append("(file = \(whole) OR \(end) = \(binder.bind(.text("/" + file))))")
        }
        if let runID = filter.runID { conditions.append("run_id = \(binder.bind(.integer(runID)))") }
        if let recordID = filter.recordID {
            let (id, key) = (binder.bind(.text(recordID)), binder.bind(.text("id:" + recordID)))
            conditions.append("(record_id = \(id) OR record_key = \(key))")
        }
        if let acknowledged = filter.acknowledged {
            conditions.append(acknowledged ? "acknowledged_at IS NOT NULL" : "acknowledged_at IS NULL")
        }
        if let since = filter.firstSeenSince { conditions.append("first_seen_at >= \(binder.bind(.text(since)))") }
        return conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
    }

    /// Acknowledges the open failures `filter` matches that are not yet acknowledged, stamped
    /// `now` (an earlier acknowledgement of the same key, for an entry since gone, is replaced).
    package static func acknowledgeSQL(
        matching filter: FailureFilter, at now: String, _ binder: inout some SQLBinder
    ) -> String {
        var unacknowledged = filter
        unacknowledged.acknowledged = false
        let stamp = binder.bind(.text(now))
        // Never without a WHERE (it always has the acknowledgement's): SQLite needs one before an upsert's ON.
        return """
            INSERT INTO failure_ack (failure_key, failure_first_seen_at, acknowledged_at)
            SELECT record_key, first_seen_at, \(stamp) FROM \(failureWithAck) \(conditions(unacknowledged, &binder))
            \(binder.dialect.upsert(key: ["failure_key"], set: ["failure_first_seen_at", "acknowledged_at"]))
            """
    }

    /// Takes back the acknowledgements of the open failures `filter` matches.
    package static func unacknowledgeSQL(matching filter: FailureFilter, _ binder: inout some SQLBinder) -> String {
        var acknowledged = filter
        acknowledged.acknowledged = true
        return """
            DELETE FROM failure_ack WHERE failure_key IN (
                SELECT record_key FROM \(failureWithAck) \(conditions(acknowledged, &binder)))
            """
    }

    /// Drops acknowledgements whose ledger entry is gone or came back (another first-seen
    /// time): an acknowledgement covers one open failure, not its key forever.
    package static let dropClearedSQL = """
        DELETE FROM failure_ack WHERE NOT EXISTS (
            SELECT 1 FROM failure
            WHERE failure.record_key = failure_ack.failure_key
                AND failure.first_seen_at = failure_ack.failure_first_seen_at)
        """
}
