import RederiveCore

extension PostgresStore {
    /// Acknowledges the open failures `filter` matches, as SQLite's
    /// `SQLiteStore.acknowledgeFailures(matching:at:)`; returns how many were newly acknowledged.
    package func acknowledgeFailures(matching filter: FailureFilter, at now: String) throws(RederiveError) -> Int {
        var unacknowledged = filter
        unacknowledged.acknowledged = false
        var args = SQLArguments()
        let stamp = args.add(now)
        let whereClause = Self.failureConditions(unacknowledged, &args)
        return try io("acknowledge failures") {
            try writer.transaction { tx in
                let added = try tx.run(
                    """
                    INSERT INTO failure_ack (failure_key, failure_first_seen_at, acknowledged_at)
                    SELECT record_key, first_seen_at, \(stamp) FROM \(Self.failureWithAck) \(whereClause)
                    ON CONFLICT (failure_key) DO UPDATE SET failure_first_seen_at = excluded.failure_first_seen_at,
                        acknowledged_at = excluded.acknowledged_at
                    """, args.binds
                ).affected
                try tx.run(FailureAcknowledgements.dropClearedSQL)
                return added
            }
        }
    }

    /// Takes back the acknowledgements of the open failures `filter` matches, as SQLite's
    /// `SQLiteStore.unacknowledgeFailures(matching:)`; returns how many.
    package func unacknowledgeFailures(matching filter: FailureFilter) throws(RederiveError) -> Int {
        var acknowledged = filter
        acknowledged.acknowledged = true
        var args = SQLArguments()
        let whereClause = Self.failureConditions(acknowledged, &args)
        return try io("take back acknowledgements") {
            try writer.transaction { tx in
                try tx.run(
                    """
                    DELETE FROM failure_ack WHERE failure_key IN (
                        SELECT record_key FROM \(Self.failureWithAck) \(whereClause))
                    """, args.binds
                ).affected
            }
        }
    }
}
