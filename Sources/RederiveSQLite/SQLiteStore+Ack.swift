import GRDB
import RederiveCore

extension SQLiteStore {
    /// Acknowledges the open failures `filter` matches (`rederive failures --ack`): `status
    /// --check` leaves them out until they clear and come back, or change code. Returns how
    /// many were newly acknowledged. Acknowledgements of entries no longer open are dropped.
    package func acknowledgeFailures(matching filter: FailureFilter, at now: String) throws(RederiveError) -> Int {
        try changeAcknowledgements(of: filter, acknowledged: false, "acknowledge failures") {
            db, condition, arguments in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO failure_ack (failure_key, failure_first_seen_at, acknowledged_at)
                    SELECT record_key, first_seen_at, ? FROM \(Self.failureWithAck) \(condition)
                    """, arguments: StatementArguments([now]) + arguments)
            let added = db.changesCount
            try db.execute(sql: FailureAcknowledgements.dropClearedSQL)
            return added
        }
    }

    /// Takes back the acknowledgements of the open failures `filter` matches (`rederive
    /// failures --unack`); returns how many.
    package func unacknowledgeFailures(matching filter: FailureFilter) throws(RederiveError) -> Int {
        try changeAcknowledgements(of: filter, acknowledged: true, "take back acknowledgements") {
            db, condition, arguments in
            try db.execute(
                sql: """
                    DELETE FROM failure_ack WHERE failure_key IN (
                        SELECT record_key FROM \(Self.failureWithAck) \(condition))
                    """, arguments: arguments)
            return db.changesCount
        }
    }

    /// Runs `change` in one write transaction over the open failures `filter` matches that
    /// are (`acknowledged: true`) or are not yet acknowledged, given their `WHERE` clause and
    /// its arguments; returns what it counts.
    private func changeAcknowledgements(
        of filter: FailureFilter, acknowledged: Bool, _ what: String,
        _ change: (Database, String, StatementArguments) throws -> Int
    ) throws(RederiveError) -> Int {
        var matching = filter
        matching.acknowledged = acknowledged
        let (condition, arguments) = Self.failureConditions(matching)
        do {
            return try pool.write { db in try change(db, condition, arguments) }
        } catch {
            throw .io("\(path): cannot \(what): \(error)")
        }
    }
}
